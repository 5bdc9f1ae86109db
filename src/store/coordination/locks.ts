/**
 * Per-key serialisation of the store's read-modify-write work. One process: KeyedMutex. Several
 * instances on one PostgreSQL database: pg/pg-locks.ts, where another instance may have written
 * under the same key since this instance last held it; then `onStale` listeners run before the
 * holder's work, so repositories drop what they cached for that key and read it fresh.
 */
export interface Locks {
  run<T>(key: string, fn: () => Promise<T>): Promise<T>
  /** Holds several keys at once, always taken in sorted order so two callers cannot deadlock. */
  runAll<T>(keys: string[], fn: () => Promise<T>): Promise<T>
  /** Resolves once all work queued so far has finished (used on shutdown). */
  idle(): Promise<void>
  /** Called with a key whose data another instance may have changed, before its holder's work runs. */
  onStale(listener: (key: string) => void): () => void
}
