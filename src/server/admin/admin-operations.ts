import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { lockDataDir } from '../../store/engine/data-dir-lock.js'
import { DataDirBusyError, type FolioStore, openStore, type PlanTable, PlansInvalidError, type SharedState } from '../../store/index.js'
import { DATABASE_INSTANCE_FILE } from '../../domain/database-url.js'
import { aiMessagesThisMonth } from '../limits/ai-quota.js'

/** What the operator asked for cannot be done as asked (an unknown plan or workspace). */
export class AdminError extends Error {
  constructor(
    message: string,
    readonly kind: 'invalid' | 'not_found',
  ) {
    super(message)
  }
}

/**
 * The operator's operations on workspaces (folio admin), the same whether the CLI opened a
 * stopped server's store itself or a running server carries them out for it (server/admin/admin-routes.ts).
 * The store's plans must be loaded.
 */
export interface AdminDeps {
  store: FolioStore
  /** The running server's shared state: the month's AI messages are known only there. */
  shared?: SharedState
}

function requirePlan(deps: AdminDeps, plan: string): void {
  if (!deps.store.plans.has(plan)) {
    throw new AdminError(`No plan "${plan}": the plans are ${deps.store.plans.names().join(', ')} (folio admin plans <file> changes them).`, 'invalid')
  }
}

function requireWorkspace(deps: AdminDeps, id: string) {
  const ws = deps.store.workspaces.get(id)
  if (!ws) throw new AdminError(`No workspace ${id} (folio admin workspace list shows them).`, 'not_found')
  return ws
}

export async function createWorkspace(deps: AdminDeps, input: { name: string; plan?: string; ownerEmail?: string }) {
  if (!input.name.trim()) throw new AdminError('A workspace needs a name.', 'invalid')
  const plan = input.plan ?? deps.store.plans.names()[0]!
  requirePlan(deps, plan)
  return deps.store.workspaces.create({ name: input.name.trim(), plan, owner: { name: input.ownerEmail ?? 'owner', email: input.ownerEmail } })
}

export function listWorkspaces(deps: AdminDeps) {
  return deps.store.workspaces
    .list()
    .map((ws) => ({ ...ws, members: deps.store.workspaces.members(ws.id).length, hasKey: deps.store.workspaces.hasKey(ws.id) }))
}

export async function setPlan(deps: AdminDeps, id: string, plan: string) {
  requireWorkspace(deps, id)
  requirePlan(deps, plan)
  return deps.store.workspaces.setPlan(id, plan)
}

export function members(deps: AdminDeps, id: string) {
  requireWorkspace(deps, id)
  return deps.store.workspaces.members(id)
}

export type { PlanTable }

export function plans(deps: AdminDeps): PlanTable {
  return deps.store.plans.table()
}

/** Replaces the plans table; every instance of a database reads it again within seconds. */
export async function replacePlans(deps: AdminDeps, table: unknown): Promise<PlanTable> {
  try {
    return await deps.store.plans.replace(table)
  } catch (error) {
    if (error instanceof PlansInvalidError)
      throw new AdminError(`Those plans cannot be used: ${error.message}. Each plan needs requestsPerMinute, aiMessagesPerMonth and storageBytes.`, 'invalid')
    throw error
  }
}

/** Each workspace's use against its plan (one workspace, or all). AI messages: null when no server runs to know them. */
export async function usage(deps: AdminDeps, id?: string) {
  const list = id ? [requireWorkspace(deps, id)] : deps.store.workspaces.list()
  return Promise.all(
    list.map(async (ws) => {
      const limits = deps.store.plans.of(ws.plan)
      return {
        id: ws.id,
        name: ws.name,
        plan: ws.plan,
        storageBytes: await deps.store.usage.bytes(ws.id),
        storageLimit: limits.storageBytes,
        aiMessagesThisMonth: deps.shared ? await aiMessagesThisMonth({ shared: deps.shared }, ws.id) : null,
        aiMessagesLimit: limits.aiMessagesPerMonth,
      }
    }),
  )
}

/**
 * The store of a data dir no server is using, opened for the operator (its plans loaded); or,
 * when a server holds the dir, that server's pid: then the server must be asked instead.
 */
export async function openForAdmin(dataDir: string): Promise<{ deps: AdminDeps; close: () => Promise<void> } | { busyPid: number }> {
  // The folder of an instance serving a database: its store is the database's, which only the
  // running instance opens for the operator. Stopped, nothing is opened there: a flat store
  // opened here would be another, empty one, written into the instance's folder.
  const instance = await readFile(join(dataDir, DATABASE_INSTANCE_FILE), 'utf8').catch(() => undefined)
  if (instance !== undefined) {
    let unlock: () => Promise<void>
    try {
      unlock = await lockDataDir(dataDir)
    } catch (error) {
      if (error instanceof DataDirBusyError) return { busyPid: error.pid }
      throw error
    }
    await unlock()
    throw new AdminError(
      `${dataDir} is the folder of an instance serving ${instance.trim()}: start it (folio serve --database …, --data ${dataDir}), and folio admin asks it.`,
      'invalid',
    )
  }
  let store: FolioStore
  try {
    store = await openStore({ dataDir, log: () => {} })
  } catch (error) {
    if (error instanceof DataDirBusyError) return { busyPid: error.pid }
    throw error
  }
  try {
    await store.plans.load()
  } catch (error) {
    await store.close()
    throw error
  }
  return { deps: { store }, close: () => store.close() }
}
