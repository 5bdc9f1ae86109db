/*
 * What the folio keeps in localStorage, kept for its next view in this browser. The frame's
 * stand-in storage (src/web/frame/storage-shims.js) posts its entries here when they change; the
 * server's starter script hands them back to the frame's first page through its name. Only
 * strings, only this folio's key, only up to FRAME_STORAGE_KEPT: the folio decides nothing else.
 */
import { FRAME_STATE_PREFIX, FRAME_STORAGE_KEPT, frameStorageKey } from '../../domain/share-page-storage.ts'

export function createFrameStorage(boot) {
  const key = frameStorageKey(boot.id)

  function save(text) {
    try {
      localStorage.setItem(key, text)
    } catch {
      // Full: other folios' kept storage goes first (this page's own state matters more), then once more.
      try {
        for (let i = localStorage.length - 1; i >= 0; i--) {
          const other = localStorage.key(i)
          if (other?.startsWith(frameStorageKey('')) && other !== key) localStorage.removeItem(other)
        }
        localStorage.setItem(key, text)
      } catch {
        // Still no room, or storage refused: kept for this view only.
      }
    }
  }

  return {
    /** Before the frame is started: what was kept, in its name (as the server's starter script does). */
    handTo(frame) {
      try {
        const kept = localStorage.getItem(key)
        if (kept) frame.name = FRAME_STATE_PREFIX + JSON.stringify({ l: JSON.parse(kept) })
      } catch {
        // nothing kept, or storage refused
      }
    },
    /** A message from the frame whose source is 'folio-frame'. */
    take(data) {
      if (data.type !== 'local-storage' || !data.entries || typeof data.entries !== 'object') return
      const kept = {}
      let size = 0
      for (const [name, value] of Object.entries(data.entries)) {
        if (typeof value !== 'string') continue
        kept[name] = value
        size += name.length + value.length
      }
      if (size === 0 || size > FRAME_STORAGE_KEPT) {
        try {
          localStorage.removeItem(key)
        } catch {
          // nothing kept, nothing to remove
        }
        return
      }
      save(JSON.stringify(kept))
    },
  }
}
