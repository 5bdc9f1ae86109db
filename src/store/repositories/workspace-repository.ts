import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Storage } from 'unstorage'
import type { Principal, Role } from '../../domain/principal.js'
import { readJson, writeJson } from '../engine/json-io.js'
import type { Locks } from '../coordination/locks.js'
import { keys } from '../keys.js'
import { mapLimit } from '../engine/map-limit.js'
import { accountLock, lockedThing, workspaceLock } from '../coordination/lock-keys.js'
import { emailHash, hashKey, looksLikeApiKey, newApiKey, normaliseEmail } from './workspace-keys.js'
import { findWorkspaces, type Member, readWorkspace, type StoredKey, type Workspace, type WorkspaceRecords } from './workspace-records.js'

export type { Member, Workspace }

/** A person's workspaces, found by e-mail address (sign-in, claims, invitations). */
export interface Account {
  email: string
  workspaces: Array<{ id: string; role: Role }>
}

export class UnknownWorkspaceError extends Error {
  constructor(readonly workspaceId: string) {
    super(`No workspace ${workspaceId}`)
  }
}

export const DEFAULT_PLAN = 'free'

/**
 * What changed a workspace: here, its key (rotation, revocation, a new workspace) or its other
 * records (name, plan, members); `heard`: what the storage says now, read after another
 * instance's change (change-feed.ts publishes only the first two).
 */
export type WorkspaceChange = 'key' | 'records' | 'heard'

/**
 * Workspaces, their members and their one key (Cloud). The key is stored only as its sha256;
 * everything a request needs to know who it is (hash → workspace, the workspace's plan) is held
 * in memory, loaded on start and changed with every write, so authentication never waits for
 * the disk. Writes go to disk first, then to memory: an answer never promises what a crash
 * would take back.
 */
export class WorkspaceRepository {
  readonly #storage: Storage
  readonly #locks: Locks
  readonly #workspaces = new Map<string, Workspace>()
  readonly #keys = new Map<string, StoredKey>()
  /** sha256 of a live key → the principal it stands for (frozen, shared by every request). */
  readonly #byHash = new Map<string, Principal>()
  /** workspace → the hash #byHash holds for it. */
  readonly #indexed = new Map<string, string>()
  /** workspace → e-mail hash → member. */
  readonly #members = new Map<string, Map<string, Member>>()
  readonly #changes = new Set<(workspaceId: string, change: WorkspaceChange) => void>()
  /** Workspaces another instance wrote under their lock since this one held it: read again first. */
  readonly #stale = new Set<string>()
  /** Bumped by every write and reload of a workspace: a read that spans one is not applied. */
  readonly #written = new Map<string, number>()
  /** A walk of every workspace, when a key or workspace unknown here was asked for (several instances only). */
  readonly #refreshEvery: number | undefined
  #nextRefresh: Promise<void> | undefined
  readonly #reloading = new Set<Promise<void>>()
  #lastRefresh = 0
  #walking: Promise<void> = Promise.resolve()

  /**
   * `refreshEveryMs`: several instances share the storage (change-feed.ts), so a key or workspace
   * unknown here may have been made by another one: a miss walks the storage again, at most once
   * per this many milliseconds. One instance (the default) knows everything it holds.
   */
  constructor(storage: Storage, locks: Locks, options: { refreshEveryMs?: number } = {}) {
    this.#storage = storage
    this.#locks = locks
    this.#refreshEvery = options.refreshEveryMs
    locks.onStale((key) => {
      const thing = lockedThing(key)
      if (thing.kind === 'workspace') this.#stale.add(thing.id)
    })
  }

  /** Reads every workspace, key and member into memory (on start). */
  async load(): Promise<this> {
    await this.#walk()
    return this
  }

  /** Reads every workspace again: each one no write overtook meanwhile takes what the storage says. */
  async #walk(): Promise<void> {
    const started = new Map(this.#written)
    await mapLimit([...(await findWorkspaces(this.#storage))], 16, async ([id, found]) => {
      const records = await readWorkspace(this.#storage, id, found)
      if ((this.#written.get(id) ?? 0) === (started.get(id) ?? 0)) this.#apply(id, records)
    })
  }

  #apply(id: string, records: WorkspaceRecords): void {
    this.#written.set(id, (this.#written.get(id) ?? 0) + 1)
    if (records.workspace) this.#workspaces.set(id, records.workspace)
    else this.#workspaces.delete(id)
    if (records.key) this.#keys.set(id, records.key)
    else this.#keys.delete(id)
    this.#members.set(id, records.members)
    this.#index(id, 'heard')
  }

  /**
   * Another instance changed the workspace (change-feed.ts): it is read again and the listeners
   * hear of it. After a key change the old key stops working here at once: a rotated or revoked
   * key must not outlive the message.
   */
  heard(id: string, change: 'key' | 'records'): Promise<void> {
    if (change === 'key') {
      this.#unindex(id)
      this.#emit(id, 'heard')
    }
    // No lock: a local write meanwhile leaves what it wrote in memory, and this read is dropped.
    const before = this.#written.get(id) ?? 0
    const reload = readWorkspace(this.#storage, id).then((records) => {
      if ((this.#written.get(id) ?? 0) === before) this.#apply(id, records)
    })
    // A key missed meanwhile waits for this read before it walks the storage (refreshOnMiss).
    this.#reloading.add(reload)
    void reload.finally(() => this.#reloading.delete(reload)).catch(() => {})
    return reload
  }

  /** Messages from other instances may have been missed: every workspace is read again. */
  forgetAll(): Promise<void> {
    return this.#refresh()
  }

  /** Whether refreshOnMiss can find anything (several instances); one instance knows every key it has. */
  get refreshesOnMiss(): boolean {
    return this.#refreshEvery !== undefined
  }

  /**
   * Several instances: a workspace key not known here may belong to a workspace another
   * instance made, or to a key it rotated. Walks the storage again (misses share one walk, at
   * most one per refreshEveryMs, so a flood of wrong keys costs one walk a period) and says
   * whether the key is known now. One instance: false at once.
   */
  async refreshOnMiss(token: string | undefined): Promise<boolean> {
    if (this.#refreshEvery === undefined || !token || !looksLikeApiKey(token)) return false
    await Promise.allSettled([...this.#reloading])
    if (this.principalOfKey(token)) return true
    this.#nextRefresh ??= (async () => {
      await sleep(Math.max(0, this.#lastRefresh + this.#refreshEvery! - Date.now()), undefined, { ref: false })
      // Misses from now on wait for the next walk: this one may have started before their workspace existed.
      this.#nextRefresh = undefined
      await this.#refresh()
    })()
    await this.#nextRefresh
    return this.principalOfKey(token) !== undefined
  }

  #refresh(): Promise<void> {
    this.#walking = this.#walking.then(() => {
      this.#lastRefresh = Date.now()
      return this.#walk()
    })
    return this.#walking
  }

  /** With the workspace's lock held: what the storage holds now. */
  async #reload(id: string): Promise<void> {
    this.#stale.delete(id)
    this.#apply(id, await readWorkspace(this.#storage, id))
  }

  /** Runs `fn` under the workspace's lock, on what the storage holds if another instance wrote it since. */
  #locked<T>(id: string, fn: () => Promise<T>): Promise<T> {
    return this.#locks.run(workspaceLock(id), async () => {
      if (this.#stale.has(id)) await this.#reload(id)
      this.#written.set(id, (this.#written.get(id) ?? 0) + 1)
      return fn()
    })
  }

  /** Called after any change of a workspace (its key, plan, members), here or heard of: caches keyed by it drop. */
  onChange(listener: (workspaceId: string, change: WorkspaceChange) => void): () => void {
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
    await this.#locked(workspace.id, async () => {
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
    return this.#locked(id, async () => {
      const next = { ...this.#require(id), plan }
      await writeJson(this.#storage, keys.workspace(id), next)
      this.#workspaces.set(id, next)
      this.#index(id, 'records')
      return next
    })
  }

  async rename(id: string, name: string): Promise<Workspace> {
    return this.#locked(id, async () => {
      const next = { ...this.#require(id), name }
      await writeJson(this.#storage, keys.workspace(id), next)
      this.#workspaces.set(id, next)
      this.#index(id, 'records')
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
    return this.#locked(id, async () => {
      this.#require(id)
      const existing = this.member(id, email)
      const member: Member = { email, role: input.role, joinedAt: existing?.joinedAt ?? new Date().toISOString() }
      await writeJson(this.#storage, keys.workspaceMember(id, emailHash(email)), member)
      this.#membersOf(id).set(emailHash(email), member)
      await this.#updateAccount(email, (list) => [...list.filter((w) => w.id !== id), { id, role: input.role }])
      this.#emit(id, 'records')
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
    return this.#locked(id, async () => {
      const hash = emailHash(address)
      if (!this.#members.get(id)?.has(hash)) return false
      await this.#storage.removeItem(keys.workspaceMember(id, hash))
      this.#members.get(id)!.delete(hash)
      await this.#updateAccount(address, (list) => list.filter((w) => w.id !== id))
      this.#emit(id, 'records')
      return true
    })
  }

  async accountOf(email: string): Promise<Account | undefined> {
    return readJson<Account>(this.#storage, keys.account(emailHash(email)))
  }

  /** A new key for the workspace; the previous one stops working at once. */
  async rotateKey(id: string): Promise<string> {
    const apiKey = newApiKey()
    await this.#locked(id, async () => {
      this.#require(id)
      await this.#saveKey(id, hashKey(apiKey))
    })
    return apiKey
  }

  /** No key works for the workspace until the next rotation. */
  async revokeKey(id: string): Promise<void> {
    await this.#locked(id, async () => {
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
    this.#index(id, 'key')
  }

  #unindex(id: string): void {
    const old = this.#indexed.get(id)
    if (old) this.#byHash.delete(old)
    this.#indexed.delete(id)
  }

  /** Rebuilds what memory says about a workspace's key, then tells the listeners. */
  #index(id: string, change: WorkspaceChange): void {
    this.#unindex(id)
    const ws = this.#workspaces.get(id)
    const hash = this.#keys.get(id)?.hash
    // The key is the workspace's own credential: whoever holds it acts with the Owner's rights
    // (an agent rotates its own key; spec: Authentication 2).
    if (ws && hash) {
      this.#byHash.set(hash, Object.freeze({ workspaceId: id, name: ws.name, role: 'owner', via: 'api-key' }))
      this.#indexed.set(id, hash)
    }
    this.#emit(id, change)
  }

  #emit(id: string, change: WorkspaceChange): void {
    for (const listener of this.#changes) listener(id, change)
  }

  async #updateAccount(email: string, change: (list: Account['workspaces']) => Account['workspaces']): Promise<void> {
    const key = keys.account(emailHash(email))
    await this.#locks.run(accountLock(emailHash(email)), async () => {
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
