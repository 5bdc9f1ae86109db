import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MIGRATIONS } from '../src/store/pg/migrations.js'
import { runCli } from './helpers/cli.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'

/** folio db migrate|status, run as a user does (the built CLI), on a database of its own. */

let db: TestDatabase
beforeAll(async () => {
  db = await freshDatabase({ empty: true })
})
afterAll(() => db?.drop())

const where = () => {
  const url = new URL(db.url)
  return `${url.hostname}:${url.port}${url.pathname}`
}

describe('folio db', () => {
  it('status on a new database: nothing applied, every step pending; --json for scripts', async () => {
    const human = await runCli(['db', 'status', '--database', db.url])
    expect(human.code).toBe(0)
    expect(human.stdout).toBe(
      `${where()}: not current\nPending (folio db migrate applies them):\n${MIGRATIONS.map((m) => `  ${m.id}  ${m.name}`).join('\n')}\n`,
    )
    const json = await runCli(['db', 'status', '--json'], { FOLIO_DATABASE_URL: db.url })
    expect(json.code).toBe(0)
    expect(json.json()).toEqual({ applied: [], pending: MIGRATIONS.map(({ id, name }) => ({ id, name })), unknown: [], changed: [], current: false })
  })

  it('migrate applies the pending steps once; a second run has nothing to do', async () => {
    const first = await runCli(['db', 'migrate', '--database', db.url])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe(`Applied:\n${MIGRATIONS.map((m) => `  ${m.id}  ${m.name}`).join('\n')}\n${where()} is current.\n`)
    const again = await runCli(['db', 'migrate', '--json'], { FOLIO_DATABASE_URL: db.url })
    expect(again.json()).toEqual({ applied: [], current: true })
    const status = await runCli(['db', 'status', '--json', '--database', db.url])
    expect(status.json()).toMatchObject({ current: true, pending: [] })
    expect(status.json().applied.map((m: { id: number }) => m.id)).toEqual(MIGRATIONS.map((m) => m.id))
  })

  it('without a database is a usage error that says how to name one', async () => {
    const result = await runCli(['db', 'status'], { FOLIO_DATABASE_URL: '' })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--database postgres://user:password@host:5432/database, or set FOLIO_DATABASE_URL')
  })

  it('a --database that is not a URL fails saying what one looks like', async () => {
    const result = await runCli(['db', 'status', '--database', 'db.example.com'])
    expect([result.code, result.stderr.trim()]).toEqual([
      1,
      'folio: Cannot use the database: the database URL is not a URL: use postgres://user:password@host:5432/database',
    ])
  })

  it('a database it cannot reach fails with the address and the reason, never the password', async () => {
    const result = await runCli(['db', 'migrate', '--database', 'postgres://folio:s3cret-pw@127.0.0.1:1/folio', '--json'])
    expect(result.code).toBe(1)
    expect(result.json()).toEqual({ error: 'failed', message: expect.stringContaining('Cannot use the database: 127.0.0.1:1/folio: ECONNREFUSED') })
    expect(result.stdout + result.stderr).not.toContain('s3cret-pw')
  })

  it('serve --database says what is wrong with the database before it listens, never the password', async () => {
    const notUrl = await runCli(['serve', '--port', '0', '--database', 'db.example.com'])
    expect(notUrl.code).toBe(2)
    expect(notUrl.stderr).toContain(
      'The database URL is not a postgres:// URL: give --database postgres://user:password@host:5432/database (or FOLIO_DATABASE_URL).',
    )
    const instanceDir = await mkdtemp(join(tmpdir(), 'folio-cli-db-'))
    const unreachable = await runCli(['serve', '--port', '0', '--data', instanceDir, '--database', 'postgres://folio:s3cret-pw@127.0.0.1:1/folio'])
    await rm(instanceDir, { recursive: true, force: true })
    expect(unreachable.code).toBe(1)
    expect(unreachable.stderr).toContain('Cannot use the database 127.0.0.1:1/folio: connect ECONNREFUSED')
    expect(unreachable.stderr).toContain('Check that PostgreSQL runs there and that --database (or FOLIO_DATABASE_URL) names it')
    expect(unreachable.stdout + unreachable.stderr).not.toContain('s3cret-pw')
  })
})
