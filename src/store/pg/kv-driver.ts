import type pg from 'pg'
import { defineDriver } from 'unstorage'
import { DatabaseUnavailableError } from '../store-errors.js'
import { isTransient, retrying } from './pool.js'

/**
 * The store's unstorage driver over PostgreSQL: one table, `folio_kv (key, value bytea)`
 * (migration 2), with the key semantics of durable-fs-driver.ts, so the repositories run on
 * either unchanged (test/helpers/storage-driver-contract.ts holds both to one contract).
 *
 * Each call is one autocommitted statement: a write is durable when it returns (the server's
 * WAL, group-committed), a reader sees the old value or the new one, never a mix, and of
 * concurrent writers to one key the last to commit wins. Every statement is idempotent (an
 * upsert, a delete, a read), so each is retried on a transient failure (pool.ts).
 *
 * Statements are named (prepared once per connection: no parse or plan per call). A prefix is
 * the range `key >= 'a:b:' AND key < 'a:b;'` (';' follows ':'), which with COLLATE "C" is
 * exactly the keys that start with `a:b:`: the index condition PostgreSQL itself derives from
 * `LIKE 'a:b:%'`, but one a prepared statement's generic plan keeps (a generic plan of
 * `key LIKE $1` knows no prefix and scans the whole table), and with nothing to escape.
 */
export interface PgKvOptions {
  /** The instance's pool (pool.ts createPool). Its owner ends it, after the Storage's dispose(). */
  pool: pg.Pool
}

/** unstorage's form of a key, as the fs driver reads it: `a::b:` is `a:b`. */
const normalize = (key: string | undefined) => (key ?? '').split(':').filter(Boolean).join(':')

function itemKey(key: string): string {
  const normalized = normalize(key)
  // PostgreSQL's text cannot hold a NUL; say so rather than let the server's encoding error speak.
  if (!normalized || normalized.includes('\0')) throw new Error(`Refusing unsafe storage key: ${JSON.stringify(key)}`)
  return normalized
}

/** The bounds of the keys under `prefix` (non-empty, normalised): [`prefix:`, `prefix;`). */
const under = (prefix: string) => [`${prefix}:`, `${prefix};`]

const asBytes = (value: unknown): Buffer => {
  if (Buffer.isBuffer(value)) return value
  if (typeof value === 'string') return Buffer.from(value, 'utf8')
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength)
  throw new TypeError(`A storage value must be bytes or text, not ${typeof value}`)
}

const STATEMENTS = {
  has: 'SELECT 1 FROM folio_kv WHERE key = $1',
  get: 'SELECT value FROM folio_kv WHERE key = $1',
  set: 'INSERT INTO folio_kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
  remove: 'DELETE FROM folio_kv WHERE key = $1',
  keys: 'SELECT key FROM folio_kv ORDER BY key',
  keys_under: 'SELECT key FROM folio_kv WHERE key >= $1 AND key < $2 ORDER BY key',
  // As the fs driver's rm of the folder: the name itself goes too (there it is a file or a folder).
  clear: 'DELETE FROM folio_kv WHERE key = $1 OR (key >= $2 AND key < $3)',
} as const

export const pgKvDriver = defineDriver((options: PgKvOptions) => {
  const { pool } = options
  // What dispose() waits for: a pool ended under a queued statement would leave it waiting forever.
  const running = new Set<Promise<unknown>>()

  const query = <Row extends unknown[]>(name: keyof typeof STATEMENTS, values: unknown[]): Promise<Row[]> => {
    const done = retrying(() => pool.query<Row>({ name: `folio_kv_${name}`, text: STATEMENTS[name], values, rowMode: 'array' })).then(
      (result) => result.rows,
      // Still failing after the retries: the database is away (HTTP 503), not a bug (500).
      (error: unknown) => {
        throw isTransient(error) ? new DatabaseUnavailableError(error) : error
      },
    )
    running.add(done)
    const forget = () => running.delete(done)
    done.then(forget, forget)
    return done
  }

  const read = async (key: string): Promise<Buffer | null> => (await query<[Buffer]>('get', [itemKey(key)]))[0]?.[0] ?? null
  const write = async (key: string, value: unknown): Promise<void> => {
    await query('set', [itemKey(key), asBytes(value)])
  }

  return {
    name: 'pg-kv',
    options,
    flags: { maxDepth: false },
    async hasItem(key) {
      return (await query('has', [itemKey(key)])).length > 0
    },
    async getItem(key) {
      // As the fs driver's readFile(…, 'utf8'): bytes that are not UTF-8 read as U+FFFD.
      return (await read(key))?.toString('utf8') ?? null
    },
    getItemRaw: read,
    setItem: write,
    setItemRaw: write,
    // Options ({ lazy }, …) ask for less durability than this gives anyway: nothing to do with them.
    async removeItem(key) {
      await query('remove', [itemKey(key)])
    },
    async getKeys(base) {
      const prefix = normalize(base)
      const rows = prefix ? await query<[string]>('keys_under', under(prefix)) : await query<[string]>('keys', [])
      return rows.map((row) => row[0])
    },
    async clear(base) {
      const prefix = normalize(base)
      if (!prefix) throw new Error('Refusing to clear the whole store')
      await query('clear', [prefix, ...under(prefix)])
    },
    async dispose() {
      await Promise.allSettled([...running])
    },
  }
})
