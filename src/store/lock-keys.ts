/**
 * Keys of the store's KeyedMutex for a folio: one for its history and metadata, and one per
 * engagement key (engagement-repository.ts locks `<id>#<kind>`), so a beacon never waits for
 * an upload. Deleting a folio holds them all.
 */
export const folioLock = (id: string) => id
export const folioLocks = (id: string) => [id, `${id}#comments`, `${id}#reactions`, `${id}#analytics`]
