/**
 * What the share page keeps in the viewer's browser (its origin's storage), under which keys: the
 * server's inline starter script and the page's own script (src/web/share/) read the same ones.
 */

/**
 * A folio's frame has no storage of its own (an opaque origin): src/web/frame/storage-shims.js
 * gives it stand-ins, carried from page to page of the frame in window.name behind this prefix.
 * The share page starts the frame with the folio's saved localStorage there too.
 */
export const FRAME_STATE_PREFIX = 'folio-frame-state:'

/** Where the share page keeps a folio's localStorage for the next view (the server's origin, this browser). */
export const frameStorageKey = (folioId: string) => `folio:frame-storage:${folioId}`

/** Of a folio's localStorage, at most this much (UTF-16 code units) is kept for its next view. */
export const FRAME_STORAGE_KEPT = 256 * 1024

/** Where the viewer was (file, hash, scroll), kept for this tab while the folio is away (share-access.js). */
export const placeKey = (folioId: string) => `folio.place:${folioId}`
