import { ERRORS } from '../../api/errors.js'
import { storedContents } from '../../domain/asset-pointers.js'
import type { Principal } from '../../domain/principal.js'
import { hashBytes } from '../../store/content/blob-store.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'

/** What a write will store: text and data URLs as the API carries them, or bytes. */
export type IncomingContent = string | Buffer

const formatBytes = (n: number) =>
  n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GB` : n >= 1024 ** 2 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`

/**
 * Runs a write that stores these contents, within the workspace's storage quota (Cloud): a write
 * over it is refused whole (402 STORAGE_EXCEEDED) before anything is stored; contents the
 * workspace already holds cost nothing; writes running at once are counted together, so two
 * cannot both take the last megabyte. Once the write succeeded its new contents are counted.
 * OSS has no quota: the write just runs.
 */
export async function withinStorage<T>(
  ctx: Pick<ServerContext, 'planLimits' | 'store'>,
  principal: Principal | undefined,
  contents: Iterable<IncomingContent | null | undefined>,
  write: () => Promise<T>,
): Promise<T> {
  if (!ctx.planLimits || !principal) return write()
  const items: Array<{ hash: string; bytes: number }> = []
  for (const content of contents) {
    if (content === null || content === undefined) continue
    // A file value of the files API: what the Cloud store keeps of it (images as assets).
    for (const bytes of typeof content === 'string' ? storedContents(content, hashBytes) : [content])
      items.push({ hash: hashBytes(bytes), bytes: bytes.length })
  }
  if (!items.length) return write()
  const usage = ctx.store.usage
  const workspaceId = principal.workspaceId
  const { name, limits } = ctx.planLimits.planOf(workspaceId)
  const reserved = await usage.reserve(workspaceId, items, limits.storageBytes)
  if (!reserved.admitted) {
    throw fail(
      ERRORS.storageExceeded,
      `This would store ${formatBytes(reserved.added)} more, and your workspace uses ${formatBytes(reserved.used)} of the ${formatBytes(limits.storageBytes)} of its ${name} plan: upgrade the plan, or delete folios you no longer need. Nothing was stored.`,
    )
  }
  try {
    const result = await write()
    for (const item of items) await usage.countContent(workspaceId, item.hash, item.bytes)
    return result
  } finally {
    usage.release(workspaceId, reserved)
  }
}
