import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { migrate } from '../../src/store/pg/migrate.js'
import { startCluster } from './pg-cluster.js'

/**
 * vitest's globalSetup: one PostgreSQL server for the whole run (started in ~1 s), and in it
 * `folio_template`, a database with every migration applied. Each test file clones it
 * (pg.ts: freshDatabase, ~50–150 ms), so files running in parallel never share data.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string
  }
}

export const TEMPLATE_DATABASE = 'folio_template'

export default async function setup(project: TestProject) {
  const cluster = await startCluster()
  try {
    const admin = new pg.Client(cluster.url)
    await admin.connect()
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`)
    await admin.end()
    const template = new pg.Pool({ connectionString: cluster.url.replace(/\/postgres$/, `/${TEMPLATE_DATABASE}`), max: 1 })
    template.on('error', () => {})
    await migrate(template)
    // A database cannot be cloned while anyone is connected to it.
    await template.end()
  } catch (error) {
    await cluster.stop()
    throw error
  }
  project.provide('pgUrl', cluster.url)
  return () => cluster.stop()
}
