import type { Storage } from 'unstorage'
import type { Role } from '../../domain/principal.js'
import { readJson } from '../engine/json-io.js'
import { keys } from '../keys.js'
import { emailHash } from './workspace-keys.js'

/** A Cloud workspace (spec: Organization {id, name, plan}). */
export interface Workspace {
  id: string
  name: string
  plan: string
  createdAt: string
}

export interface Member {
  email: string
  role: Role
  joinedAt: string
}

/** A workspace's key as stored: workspaces/<ws>/key.json. */
export interface StoredKey {
  /** sha256 of the key; null once revoked. */
  hash: string | null
  /** +1 on every rotation and revocation: sign-in sessions made under an older one end. */
  generation: number
  rotatedAt: string
}

/** What the storage holds of one workspace. */
export interface WorkspaceRecords {
  workspace: Workspace | undefined
  key: StoredKey | undefined
  /** e-mail hash → member */
  members: Map<string, Member>
}

/** Which of a workspace's files a walk found. */
export interface FoundWorkspace {
  files: Array<'workspace.json' | 'key.json'>
  memberKeys: string[]
}

/** Every workspace the storage holds, from one walk of workspaces/ (workspace-repository.ts loads them). */
export async function findWorkspaces(storage: Storage): Promise<Map<string, FoundWorkspace>> {
  const found = new Map<string, FoundWorkspace>()
  for (const key of await storage.getKeys('workspaces')) {
    const parts = key.split(':')
    const isMember = parts.length === 4 && parts[2] === 'members'
    const file = parts.length === 3 && (parts[2] === 'workspace.json' || parts[2] === 'key.json') ? parts[2] : undefined
    if (!isMember && !file) continue
    let entry = found.get(parts[1]!)
    if (!entry) found.set(parts[1]!, (entry = { files: [], memberKeys: [] }))
    if (file) entry.files.push(file)
    else entry.memberKeys.push(key)
  }
  return found
}

/** Reads one workspace: what a walk found of it, else everything it may have. */
export async function readWorkspace(storage: Storage, id: string, found?: FoundWorkspace): Promise<WorkspaceRecords> {
  const files = found?.files ?? ['workspace.json', 'key.json']
  const [workspace, key, memberKeys] = await Promise.all([
    files.includes('workspace.json') ? readJson<Workspace>(storage, keys.workspace(id)) : undefined,
    files.includes('key.json') ? readJson<StoredKey>(storage, keys.workspaceKey(id)) : undefined,
    found?.memberKeys ?? storage.getKeys(keys.workspaceMembers(id)),
  ])
  const members = new Map<string, Member>()
  for (const memberKey of memberKeys) {
    const member = await readJson<Member>(storage, memberKey)
    if (member) members.set(emailHash(member.email), member)
  }
  return { workspace, key, members }
}
