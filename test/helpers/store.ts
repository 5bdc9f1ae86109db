import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { FolioStore } from '../../src/store/index.js'
import type { NewFolioMeta } from '../../src/store/repositories/folio-repository.js'

export const newMeta = (over: Partial<NewFolioMeta> = {}): NewFolioMeta => ({
  workspaceId: 'local',
  title: 'T',
  description: '',
  isPrivate: false,
  accessKey: '',
  allowComments: true,
  presentationModeOnly: false,
  status: 'draft',
  projectMode: 'deck',
  collaborators: [],
  designPreferences: {},
  referenceFiles: [],
  publicTunnelEnabled: false,
  ...over,
})

export async function createFolio(store: FolioStore, files: Record<string, string>, over: Partial<NewFolioMeta> = {}) {
  return store.folios.create({ meta: newMeta(over), files, commitMessage: 'first', author: 'test' })
}

/** Every file under dir (recursively), with its size. */
export async function listFiles(of: string | FolioStore): Promise<Array<{ path: string; size: number }>> {
  // An open store's files once everything its journal holds is written to them.
  if (typeof of !== 'string') await of.writeBack()
  const dir = typeof of === 'string' ? of : of.dataDir
  const out: Array<{ path: string; size: number }> = []
  const walk = async (d: string) => {
    for (const entry of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      // The driver's temp files and write journal are how data is written, not data.
      if (d === dir && (entry.name === '.tmp' || entry.name === '.journal')) continue
      const p = join(d, entry.name)
      if (entry.isDirectory()) await walk(p)
      else {
        // Background housekeeping may remove a file between the listing and the stat: it is not there.
        const found = await stat(p).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined
          throw error
        })
        if (found) out.push({ path: p.slice(dir.length + 1), size: found.size })
      }
    }
  }
  await walk(dir)
  return out
}

/** Counts storage calls (and the bytes written), to show what an operation costs without timing it. */
export function countStorageCalls(store: FolioStore) {
  const counts: Record<string, number> = {}
  let bytes = 0
  const storage = store.storage as unknown as Record<string, unknown>
  for (const method of ['getItem', 'getItemRaw', 'setItem', 'setItemRaw', 'hasItem', 'removeItem', 'getKeys', 'clear']) {
    const original = storage[method] as (...args: unknown[]) => unknown
    storage[method] = (...args: unknown[]) => {
      counts[method] = (counts[method] ?? 0) + 1
      const value = args[1]
      if (method === 'setItem' || method === 'setItemRaw')
        bytes += typeof value === 'string' ? Buffer.byteLength(value) : ((value as Uint8Array | undefined)?.byteLength ?? 0)
      return original.apply(store.storage, args)
    }
  }
  return {
    reset: () => {
      for (const k of Object.keys(counts)) delete counts[k]
      bytes = 0
    },
    snapshot: () => ({ ...counts }),
    bytesWritten: () => bytes,
  }
}
