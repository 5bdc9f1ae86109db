import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CLIENTS_ON_FLAT_FILES, FLAT_FILES_ONLY, ON_BOTH_STORES } from './store-matrix.js'

/** Test files that start a test server, whose store FOLIO_TEST_STORE chooses (test/helpers/server.ts). */
const STARTS_A_TEST_SERVER = /\b(startTestServer|useServer|useCloudServer)\(/

describe('the store matrix (test/store-matrix.ts)', () => {
  const startsServer = readdirSync('test')
    .filter((name) => /\.test\.tsx?$/.test(name) && !name.startsWith('pg-'))
    .filter((name) => STARTS_A_TEST_SERVER.test(readFileSync(`test/${name}`, 'utf8')))

  it('names every test file that starts a test server, once: on both stores, or on flat files with a reason', () => {
    const listed = [...ON_BOTH_STORES, ...CLIENTS_ON_FLAT_FILES, ...Object.keys(FLAT_FILES_ONLY)]
    expect(
      startsServer.filter((name) => !listed.includes(name)),
      'add these to ON_BOTH_STORES (or, for a client of the API, CLIENTS_ON_FLAT_FILES; or to FLAT_FILES_ONLY, saying why)',
    ).toEqual([])
    expect(
      listed.filter((name, i) => listed.indexOf(name) !== i),
      'listed twice',
    ).toEqual([])
  })

  it('names only files that exist and start a test server', () => {
    const stale = [...ON_BOTH_STORES, ...CLIENTS_ON_FLAT_FILES, ...Object.keys(FLAT_FILES_ONLY)].filter(
      (name) => !existsSync(`test/${name}`) || !startsServer.includes(name),
    )
    expect(stale).toEqual([])
  })

  it('runs once only what is a client of the API: browser pages, the CLI and the terminal UI', () => {
    expect(CLIENTS_ON_FLAT_FILES.filter((name) => !/^(browser|cli|tui)[-.]/.test(name))).toEqual([])
  })

  it('runs the Cloud suites that start their servers through useCloudServer on PostgreSQL too', () => {
    expect(ON_BOTH_STORES).toEqual(expect.arrayContaining(['cloud-tenancy.test.ts', 'files-list-workspaces.test.ts', 'oauth-mcp.test.ts']))
  })
})
