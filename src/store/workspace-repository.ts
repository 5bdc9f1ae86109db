import { randomUUID } from 'node:crypto'
import type { Storage } from 'unstorage'
import type { Principal, Role } from '../domain/principal.js'
import { readJson, writeJson } from './json-io.js'
import type { KeyedMutex } from './keyed-mutex.js'
import { keys } from './keys.js'
import { emailHash, hashKey, looksLikeApiKey, newApiKey, normaliseEmail } from './workspace-keys.js'

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

/** A person's workspaces, found by e-mail address (sign-in, claims, invitations). */
export interface Account {
  email: string
  workspaces: Array<{ id: string; role: Role }>
}

interface StoredKey {
  /** sha256 of the key; null once revoked. */
  hash: string | null
  /** +1 on every rotation and revocation: sign-in sessions made under an older one end. */
  generation: number
  rotatedAt: string
}

export class UnknownWorkspaceError extends Error {
  constructor(readonly workspaceId: string) {
    super(`No workspace ${workspaceId}`)
  }
}

export const DEFAULT_PLAN = 'free'

/**
 * Workspaces, their members and their one key (Cloud). The key is stored only as its sha256;
 * everything a request needs to know who it is (hash → workspace, the workspace's plan) is held
 * in memory, loaded on start and changed with every write, so authentication never waits for
 * the disk. Writes go to disk first, then to memory: an answer never promises what a crash
 * would take back.
 */
export class WorkspaceRepository {
  readonly #storage: Storage
  readonly #locks: KeyedMutex
  readonly #workspaces = new Map<string, Workspace>()
  readonly #keys = new Map<string, StoredKey>()
  /** sha256 of a live key → the principal it stands for (frozen, shared by every request). */
  readonly #byHash = new Map<string, Principal>()
  /** workspace → the hash #byHash holds for it. */
  readonly #indexed = new Map<string, string>()
  /** workspace → e-mail hash → member. */
  readonly #members = new Map<string, Map<string, Member>>()
  readonly #changes = new Set<(workspaceId: string) => void>()

  constructor(storage: Storage, locks: KeyedMutex) {
    this.#storage = storage
    this.#locks = locks
  }

  /** Reads every workspace, key and member into memory (on start). */
  async load(): Promise<this> {
    const found = await this.#storage.getKeys('workspaces')
    for (const key of found) {
      const parts = key.split(':')
      const id = parts[1]!
      if (parts.length === 3 && parts[2] === 'workspace.json') {
        const ws = await readJson<Workspace>(this.#storage, key)
        if (ws) this.#workspaces.set(id, ws)
      } else if (parts.length === 3 && parts[2] === 'key.json') {
        const stored = await readJson<StoredKey>(this.#storage, key)
        if (stored) this.#keys.set(id, stored)
      } else if (parts.length === 4 && parts[2] === 'members') {
        const member = await readJson<Member>(this.#storage, key)
        if (member) this.#membersOf(id).set(emailHash(member.email), member)
      }
    }
    for (const id of this.#workspaces.keys()) this.#index(id)
    return this
  }

  /** Called after any change of a workspace (its key, plan, members): caches keyed by it drop. */
  onChange(listener: (workspaceId: string) => void): () => void {
    this.#changes.add(listener)
    return () => this.#changes.delete(listener)
  }

  /**
   * A new workspace with its first key (and its owner as a member, when an e-mail is known).
   * The key is returned once: only its hash is kept.
   */
  async create(input: { name: string; plan?: string; owner: { email?: string; name: string } }): Promise<{ workspace: Workspace; apiKey: string }> {
    const workspace: Workspace = { id: randomUUID(), name: input.name, plan: input.plan ?? DEFAULT_PLAN, createdAt: new Date().toISOString() }
    const apiKey = newApiKey()
    await this.#locks.run(lockOf(workspace.id), async () => {
      await writeJson(this.#storage, keys.workspace(workspace.id), workspace)
      this.#workspaces.set(workspace.id, workspace)
      await this.#saveKey(workspace.id, hashKey(apiKey))
    })
    if (input.owner.email) await this.addMember(workspace.id, { email: input.owner.email, role: 'owner' })
    return { workspace, apiKey }
  }

  get(id: string): Workspace | undefined {
    return this.#workspaces.get(id)
  }

  list(): Workspace[] {
    return [...this.#workspaces.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async setPlan(id: string, plan: string): Promise<Workspace> {
    return this.#locks.run(lockOf(id), async () => {
      const next = { ...this.#require(id), plan }
      await writeJson(this.#storage, keys.workspace(id), next)
      this.#workspaces.set(id, next)
      this.#index(id)
      return next
    })
  }

  async rename(id: string, name: string): Promise<Workspace> {
    return this.#locks.run(lockOf(id), async () => {
      const next = { ...this.#require(id), name }
      await writeJson(this.#storage, keys.workspace(id), next)
      this.#workspaces.set(id, next)
      this.#index(id)
      return next
    })
  }

  members(id: string): Member[] {
    this.#require(id)
    return [...(this.#members.get(id)?.values() ?? [])].sort((a, b) => a.joinedAt.localeCompare(b.joinedAt) || a.email.localeCompare(b.email))
  }

  member(id: string, email: string): Member | undefined {
    return this.#members.get(id)?.get(emailHash(email))
  }

  /** Adds a member, or changes the role of one already there. */
  async addMember(id: string, input: { email: string; role: Role }): Promise<Member> {
    const email = normaliseEmail(input.email)
    return this.#locks.run(lockOf(id), async () => {
      this.#require(id)
      const existing = this.member(id, email)
      const member: Member = { email, role: input.role, joinedAt: existing?.joinedAt ?? new Date().toISOString() }
      await writeJson(this.#storage, keys.workspaceMember(id, emailHash(email)), member)
      this.#membersOf(id).set(emailHash(email), member)
      await this.#updateAccount(email, (list) => [...list.filter((w) => w.id !== id), { id, role: input.role }])
      this.#emit(id)
      return member
    })
  }

  /** Changes a member's role; undefined when the address is not a member. */
  async setRole(id: string, email: string, role: Role): Promise<Member | undefined> {
    if (!this.member(id, email)) return undefined
    return this.addMember(id, { email, role })
  }

  /** Removes a member; false when the address was not one. */
  async removeMember(id: string, email: string): Promise<boolean> {
    const address = normaliseEmail(email)
    return this.#locks.run(lockOf(id), async () => {
      const hash = emailHash(address)
      if (!this.#members.get(id)?.has(hash)) return false
      await this.#storage.removeItem(keys.workspaceMember(id, hash))
      this.#members.get(id)!.delete(hash)
      await this.#updateAccount(address, (list) => list.filter((w) => w.id !== id))
      this.#emit(id)
      return true
    })
  }

  async accountOf(email: string): Promise<Account | undefined> {
    return readJson<Account>(this.#storage, keys.account(emailHash(email)))
  }

  /** A new key for the workspace; the previous one stops working at once. */
  async rotateKey(id: string): Promise<string> {
    const apiKey = newApiKey()
    await this.#locks.run(lockOf(id), async () => {
      this.#require(id)
      await this.#saveKey(id, hashKey(apiKey))
    })
    return apiKey
  }

  /** No key works for the workspace until the next rotation. */
  async revokeKey(id: string): Promise<void> {
    await this.#locks.run(lockOf(id), async () => {
      this.#require(id)
      await this.#saveKey(id, null)
    })
  }

  /** Whether the workspace has a key that works now. */
  hasKey(id: string): boolean {
    return Boolean(this.#keys.get(id)?.hash)
  }

  /** +1 on every rotation and revocation (sign-in sessions of an older generation have ended). */
  keyGeneration(id: string): number {
    return this.#keys.get(id)?.generation ?? 0
  }

  /** The principal a bearer token stands for, if it is a live workspace key: memory only. */
  principalOfKey(token: string | undefined): Principal | undefined {
    if (!token || !looksLikeApiKey(token) || this.#byHash.size === 0) return undefined
    return this.#byHash.get(hashKey(token))
  }

  async #saveKey(id: string, hash: string | null): Promise<void> {
    const previous = this.#keys.get(id)
    const stored: StoredKey = { hash, generation: (previous?.generation ?? 0) + 1, rotatedAt: new Date().toISOString() }
    await writeJson(this.#storage, keys.workspaceKey(id), stored)
    this.#keys.set(id, stored)
    this.#index(id)
  }

  /** Rebuilds what memory says about a workspace's key, then tells the listeners. */
  #index(id: string): void {
    const old = this.#indexed.get(id)
    if (old) this.#byHash.delete(old)
    this.#indexed.delete(id)
    const ws = this.#workspaces.get(id)
    const hash = this.#keys.get(id)?.hash
    // The key is the workspace's own credential: whoever holds it acts with the Owner's rights
    // (an agent rotates its own key; spec: Authentication 2).
    if (ws && hash) {
      this.#byHash.set(hash, Object.freeze({ workspaceId: id, name: ws.name, role: 'owner', via: 'api-key' }))
      this.#indexed.set(id, hash)
    }
    this.#emit(id)
  }

  #emit(id: string): void {
    for (const listener of this.#changes) listener(id)
  }

  async #updateAccount(email: string, change: (list: Account['workspaces']) => Account['workspaces']): Promise<void> {
    const key = keys.account(emailHash(email))
    await this.#locks.run(`account:${emailHash(email)}`, async () => {
      const account = (await readJson<Account>(this.#storage, key)) ?? { email, workspaces: [] }
      const workspaces = change(account.workspaces)
      if (workspaces.length) await writeJson(this.#storage, key, { email, workspaces } satisfies Account)
      else await this.#storage.removeItem(key)
    })
  }

  #membersOf(id: string): Map<string, Member> {
    let members = this.#members.get(id)
    if (!members) this.#members.set(id, (members = new Map()))
    return members
  }

  #require(id: string): Workspace {
    const ws = this.#workspaces.get(id)
    if (!ws) throw new UnknownWorkspaceError(id)
    return ws
  }
}

const lockOf = (id: string) => `workspace:${id}`
