import { ERRORS } from '../api/errors.js'
import { storedContents } from '../domain/asset-pointers.js'
import type { Principal } from '../domain/principal.js'
import { hashBytes } from '../store/blob-store.js'
import type { ServerContext } from './context.js'
import { fail } from './errors.js'

/** What a write will store: text and data URLs as the API carries them, or bytes. */
export type IncomingContent = string | Buffer

/** Writes nothing: what reserveStorage answers in OSS or when nothing new is stored. */
const NOTHING = async () => {}

const formatBytes = (n: number) => (n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GB` : n >= 1024 ** 2 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`)

/**
 * Cloud: checks a write against the workspace's storage quota before anything is stored, so a
 * write over it is refused whole (402 STORAGE_EXCEEDED). Contents the workspace already holds
 * cost nothing. Returns what to call once the write succeeded: it counts the new contents.
 */
export async function reserveStorage(ctx: Pick<ServerContext, 'planLimits' | 'store'>, principal: Principal | undefined, contents: Iterable<IncomingContent | null | undefined>): Promise<() => Promise<void>> {
  if (!ctx.planLimits || !principal) return NOTHING
  const items: Array<{ hash: string; bytes: number }> = []
  for (const content of contents) {
    if (content === null || content === undefined) continue
    // A file value of the files API: what the Cloud store keeps of it (images as assets).
    for (const bytes of typeof content === 'string' ? storedContents(content, hashBytes) : [content]) items.push({ hash: hashBytes(bytes), bytes: bytes.length })
  }
  if (!items.length) return NOTHING
  const usage = ctx.store.usage
  const workspaceId = principal.workspaceId
  const added = await usage.wouldAdd(workspaceId, items)
  if (added > 0) {
    const { name, limits } = ctx.planLimits.planOf(workspaceId)
    const used = await usage.bytes(workspaceId)
    if (used + added > limits.storageBytes) {
      throw fail(
        ERRORS.storageExceeded,
        `This would store ${formatBytes(added)} more, and your workspace uses ${formatBytes(used)} of the ${formatBytes(limits.storageBytes)} of its ${name} plan: upgrade the plan, or delete folios you no longer need. Nothing was stored.`,
      )
    }
  }
  return async () => {
    for (const item of items) await usage.countContent(workspaceId, item.hash, item.bytes)
  }
}
