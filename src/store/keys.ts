/**
 * Every storage key the repositories use, in one place. Segments are joined with ':' (the fs
 * driver maps them to folders). Ids reaching here were validated by the caller; blob hashes
 * are hex.
 *
 *   format.json                            data-dir format stamp
 *   workspaces:<ws>:folios:<id>            membership marker (lists a workspace's folios)
 *   workspaces:<ws>:integrations.json      the workspace's chat webhooks (Cloud)
 *   folios:<id>:meta.json                  folio metadata (small; rewritten by metadata edits)
 *   folios:<id>:history:s<first>.json      history segment: consecutive version manifests from
 *                                          v<first> (path → blob reference) and the old contents
 *                                          those versions replaced, packed (history-segments.ts)
 *   folios:<id>:versions:v<n>.json         a version manifest of a folio written before segments
 *   folios:<id>:log:l<first>.json          closed chunk of version summaries from v<first> (the
 *                                          open tail lives in meta.json: version-log.ts)
 *   folios:<id>:comments:s<first>.json     comment segment: comments from id c_<first> on, in id
 *                                          order (comment-segments.ts)
 *   folios:<id>:comments.json              a folio's comments before segments (data format 4 and
 *                                          older), converted on start
 *   folios:<id>:reactions.json | analytics.json
 *   folios:<id>:blobs:<sha256>             which blobs this folio refers to (so deletion needs no scan)
 *   blobs:<hh>:<sha256>                    file content, full or as a delta against a newer blob
 *   refs:<hh>:<sha256>~<owner>             who still needs a blob: a folio id, or ~<hash> of a
 *                                          blob stored as a delta against it. Empty files in the
 *                                          blob's shard: no folder per blob (each costs a disk block)
 *   trash:<id>.json                        a deletion in progress (finished on start-up)
 *   shared:records:<sha256(key)>.json      a SharedState record with its TTL (shared-state-file.ts)
 *   shared:counters:<sha256(key)>.json     a SharedState counter (monthly AI messages, …)
 *   workspaces:<ws>:workspace.json         a Cloud workspace: {id, name, plan, createdAt}
 *   workspaces:<ws>:key.json               its one key, as sha256 only: {hash, generation, rotatedAt}
 *   workspaces:<ws>:members:<sha256(email)>.json   a member: {email, role, joinedAt}
 *   workspaces:<ws>:contents:<hh>:<sha256>~<bytes>   a content the workspace holds (counted once)
 *   accounts:<sha256(email)>.json          a person's workspaces: {email, workspaces: [{id, role}]}
 *   plans.json                             the plans (Cloud), the operator edits it
 *   folios:<id>:ai-chat.json               the AI conversation of a folio (ai-records.ts), deleted with it
 *   workspaces:<ws>:ai.json                a Cloud workspace's AI provider settings, its key sealed
 */
export const keys = {
  format: 'format.json',
  workspaceFolios: (ws: string) => `workspaces:${ws}:folios`,
  workspaceFolio: (ws: string, id: string) => `workspaces:${ws}:folios:${id}`,
  workspaceIntegrations: (ws: string) => `workspaces:${ws}:integrations.json`,
  folio: (id: string) => `folios:${id}`,
  meta: (id: string) => `folios:${id}:meta.json`,
  version: (id: string, n: number) => `folios:${id}:versions:v${n}.json`,
  historyDir: (id: string) => `folios:${id}:history`,
  logChunk: (id: string, first: number) => `folios:${id}:log:l${first}.json`,
  historySegment: (id: string, first: number) => `folios:${id}:history:s${first}.json`,
  legacyComments: (id: string) => `folios:${id}:comments.json`,
  commentsDir: (id: string) => `folios:${id}:comments`,
  commentSegment: (id: string, first: number) => `folios:${id}:comments:s${first}.json`,
  reactions: (id: string) => `folios:${id}:reactions.json`,
  analytics: (id: string) => `folios:${id}:analytics.json`,
  blob: (hash: string) => `blobs:${hash.slice(0, 2)}:${hash}`,
  /** The shard holding a blob's reference markers; filter its keys with blobRefPrefix. */
  blobRefShard: (hash: string) => `refs:${hash.slice(0, 2)}`,
  blobRefPrefix: (hash: string) => `refs:${hash.slice(0, 2)}:${hash}~`,
  blobRef: (hash: string, owner: string) => `refs:${hash.slice(0, 2)}:${hash}~${owner}`,
  folioBlobs: (id: string) => `folios:${id}:blobs`,
  folioBlob: (id: string, hash: string) => `folios:${id}:blobs:${hash}`,
  trashDir: 'trash',
  trash: (id: string) => `trash:${id}.json`,
  legacyDatabase: 'database.json',
  workspaceDir: (ws: string) => `workspaces:${ws}`,
  workspace: (ws: string) => `workspaces:${ws}:workspace.json`,
  workspaceKey: (ws: string) => `workspaces:${ws}:key.json`,
  workspaceMembers: (ws: string) => `workspaces:${ws}:members`,
  workspaceMember: (ws: string, emailHash: string) => `workspaces:${ws}:members:${emailHash}.json`,
  workspaceContents: (ws: string) => `workspaces:${ws}:contents`,
  workspaceContent: (ws: string, hash: string, bytes: number) => `workspaces:${ws}:contents:${hash.slice(0, 2)}:${hash}~${bytes}`,
  account: (emailHash: string) => `accounts:${emailHash}.json`,
  plans: 'plans.json',
  aiChat: (id: string) => `folios:${id}:ai-chat.json`,
  workspaceAi: (ws: string) => `workspaces:${ws}:ai.json`,
} as const
