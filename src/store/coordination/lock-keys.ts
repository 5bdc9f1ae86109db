/**
 * Every key the store's Locks take, in one place (locks.ts). Across instances a key is also
 * what onStale names: each repository drops exactly what it cached under the keys it locks.
 *
 * A folio: one key for its history and metadata, and one per engagement kind
 * (engagement-repository.ts locks `<id>#<kind>`), so a beacon never waits for an upload.
 * Deleting a folio holds them all. Folio ids are 12 letters and digits, so the prefixed keys
 * below can never be one.
 */
export const folioLock = (id: string) => id
export const engagementLock = (id: string, kind: 'comments' | 'reactions' | 'analytics') => `${id}#${kind}`
export const folioLocks = (id: string) => [id, engagementLock(id, 'comments'), engagementLock(id, 'reactions'), engagementLock(id, 'analytics')]

/** A blob's existence, its encoding (whole or delta) and its reference markers (blob-store.ts). */
export const blobLock = (hash: string) => `blob:${hash}`
/** A workspace's record, key and members (workspace-repository.ts). */
export const workspaceLock = (id: string) => `workspace:${id}`
/** A person's list of workspaces (accounts/<sha256(email)>.json). */
export const accountLock = (emailHash: string) => `account:${emailHash}`
/** A workspace's counted contents (workspace-usage.ts). */
export const usageLock = (workspaceId: string) => `usage:${workspaceId}`
/** A folio's AI conversation (ai-records.ts). */
export const aiChatLock = (folioId: string) => `ai-chat:${folioId}`
/** A server-wide setting (settings-repository.ts). */
export const settingLock = (name: string) => `setting:${name}`
/** A workspace's chat webhooks (integrations-repository.ts). */
export const integrationsLock = (workspaceId: string) => `integrations:${workspaceId}`

/** What a lock key guards, for onStale listeners: the folio and which part of it, or another kind. */
export type LockedThing =
  | { kind: 'folio'; id: string }
  | { kind: 'engagement'; id: string; part: 'comments' | 'reactions' | 'analytics' }
  | { kind: 'blob' | 'workspace' | 'account' | 'usage' | 'ai-chat' | 'setting' | 'integrations'; id: string }

const PREFIXED = /^(blob|workspace|account|usage|ai-chat|setting|integrations):(.+)$/s

/** The inverse of the key makers above. */
export function lockedThing(key: string): LockedThing {
  const prefixed = PREFIXED.exec(key)
  if (prefixed) return { kind: prefixed[1] as 'blob', id: prefixed[2]! }
  const hash = key.indexOf('#')
  if (hash < 0) return { kind: 'folio', id: key }
  return { kind: 'engagement', id: key.slice(0, hash), part: key.slice(hash + 1) as 'comments' }
}
