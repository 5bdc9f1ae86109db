import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openStore } from '../../../src/store/index.js'
import type { NewFolioMeta } from '../../../src/store/repositories/folio-repository.js'
import { newMeta } from '../../helpers/store.js'
import { type ServerChild, startJsonLineServer } from './processes.js'

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** The built CLI, as a user runs it (npm run bench builds dist/ first). */
export function startFolio(name: string, dataDir: string, env: Record<string, string> = {}, args: string[] = []): Promise<ServerChild> {
  return startJsonLineServer(name, process.execPath, [join(ROOT, 'bin/folio.mjs'), 'serve', '--port', '0', '--data', dataDir, '--json', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  })
}

/** autocannon is one client: lift the per-client limits so the bench measures the server, limiter included. */
export const NO_RATE_LIMITS = { FOLIO_RATE_LIMITS: 'comments=100000000,reactions=100000000,analytics=100000000,public=100000000,events=100000000' }

/** What POST /api/files stores for a folio created with only a title and initialHtml. */
export function apiDefaults(title: string): NewFolioMeta {
  return newMeta({ title, description: 'A multi-page HTML folio.' })
}

/**
 * Fills a data dir through the store API, in this process and with many creates in flight:
 * 10,000 folios over HTTP would take minutes of the bench's budget for no extra insight. The
 * first folio gets `targetHtml` (the one the bench then reads); the others small pages of
 * their own, so no two folios share a blob.
 */
export async function fillStore(dataDir: string, count: number, targetHtml: string): Promise<{ targetId: string; ms: number }> {
  const started = performance.now()
  const store = await openStore({ dataDir, log: () => {} })
  try {
    const target = await store.folios.create({
      meta: apiDefaults('Bench target'),
      files: { 'index.html': targetHtml },
      commitMessage: 'Initial version',
      author: 'bench',
    })
    let next = 1
    const worker = async () => {
      while (next < count) {
        const i = next++
        const html = `<!DOCTYPE html>\n<html><body>\n<h1>Folio ${i}</h1>\n<p>Filler folio number ${i} of ${count}.</p>\n</body></html>`
        await store.folios.create({ meta: apiDefaults(`Folio ${i}`), files: { 'index.html': html }, commitMessage: 'Initial version', author: 'bench' })
      }
    }
    await Promise.all(Array.from({ length: 32 }, worker))
    return { targetId: target.meta.id, ms: performance.now() - started }
  } finally {
    await store.close()
  }
}

/** Reads one version's files through the store API (server stopped): a check that bypasses HTTP. */
export async function readVersionFromStore(dataDir: string, id: string, n: number): Promise<Record<string, string> | undefined> {
  const store = await openStore({ dataDir, log: () => {} })
  try {
    const manifest = await store.folios.manifest(id, n)
    return manifest ? await store.folios.readFiles(id, manifest) : undefined
  } finally {
    await store.close()
  }
}
