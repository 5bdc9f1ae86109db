/**
 * The PostgreSQL schema, as numbered steps applied in order (migrate.ts). Rules (ARCHITECTURE.md,
 * "PostgreSQL"): a step is never edited or removed once released (its checksum is recorded, and
 * a changed one stops the start); a change is a new step at the end; every step runs in one
 * transaction with its record, so a failed step leaves nothing behind; nothing PostgreSQL 18
 * only (uuidv7(), virtual generated columns) and no lz4 compression (production servers may be
 * older, the test server has no lz4). Times are epoch milliseconds in bigint: what the code and
 * the API use, with no time zone to convert.
 */
export interface Migration {
  id: number
  name: string
  sql: string
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'shared state: rate-limit windows, counters, records',
    sql: `
      -- Keys compare bytewise (COLLATE "C"), so a prefix LIKE uses the primary key's index.
      CREATE TABLE shared_windows (
        key text COLLATE "C" PRIMARY KEY,
        reset_at bigint NOT NULL,
        count integer NOT NULL
      );
      CREATE TABLE shared_counters (
        key text COLLATE "C" PRIMARY KEY,
        value bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      -- json, not jsonb: a record comes back as it was written (jsonb reorders keys), and no query looks inside.
      CREATE TABLE shared_records (
        key text COLLATE "C" PRIMARY KEY,
        value json NOT NULL,
        version bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      -- Record versions come from one sequence: never repeated, not even after a delete.
      CREATE SEQUENCE shared_record_versions;
      CREATE INDEX shared_windows_reset ON shared_windows (reset_at);
      CREATE INDEX shared_counters_expiry ON shared_counters (expires_at);
      CREATE INDEX shared_records_expiry ON shared_records (expires_at);
    `,
  },
  {
    id: 2,
    name: 'the store: every key and value of its unstorage Storage',
    sql: `
      -- kv-driver.ts: unstorage keys (a:b:c) and their bytes. Keys compare bytewise (COLLATE "C"),
      -- so the keys under a prefix are one range of the primary key's index.
      CREATE TABLE folio_kv (
        key text COLLATE "C" PRIMARY KEY,
        value bytea NOT NULL
      );
    `,
  },
  {
    id: 3,
    name: 'lock generations',
    sql: `
      -- generation: bumped each time an instance takes a key's lock (pg-locks.ts): an instance that
      -- last saw another number knows someone else held the key since, and drops what it cached.
      -- waiting: an instance failed to take it since, so the release announces itself (NOTIFY).
      CREATE TABLE folio_lock_generations (
        key text COLLATE "C" PRIMARY KEY,
        generation bigint NOT NULL,
        waiting boolean NOT NULL DEFAULT false
      );
    `,
  },
  {
    id: 4,
    name: 'rate-limit windows unlogged',
    sql: `
      -- A window is counted on every rate-limited request (several instances: RateLimiter counts
      -- in SharedState). Logged, each count was a commit waiting for a WAL flush: a beacon cost an
      -- fsync before its own group commit. Unlogged, a count writes no WAL; a crash of the server
      -- empties the table, which only starts every window afresh.
      ALTER TABLE shared_windows SET UNLOGGED;
    `,
  },
]
