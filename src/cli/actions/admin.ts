import { readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { readAdminFile } from '../../server/admin/admin-file.js'
import * as operations from '../../server/admin/admin-operations.js'
import { ADMIN_TOKEN_HEADER } from '../../server/admin/admin-routes.js'
import type { PlanTable } from '../../server/admin/admin-operations.js'
import { bytes, table } from '../../terminal/format.js'
import type { GlobalOptions } from '../context.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import { printResult } from '../logger.js'

/** What folio admin does, either to an open store or by asking the running server. */
interface Admin {
  createWorkspace(input: {
    name: string
    plan?: string
    ownerEmail?: string
  }): Promise<{ workspace: { id: string; name: string; plan: string }; apiKey: string }>
  listWorkspaces(): Promise<Array<{ id: string; name: string; plan: string; createdAt: string; members: number; hasKey: boolean }>>
  setPlan(id: string, plan: string): Promise<{ id: string; name: string; plan: string }>
  members(id: string): Promise<Array<{ email: string; role: string; joinedAt: string }>>
  usage(id?: string): Promise<Awaited<ReturnType<typeof operations.usage>>>
  plans(): Promise<PlanTable>
  replacePlans(table: unknown): Promise<PlanTable>
}

/**
 * The data dir's lock says whether a server runs on it: if not, the store is opened here (and
 * closed after); if so, the server's operator API is asked, with the token of admin.json.
 */
async function withAdmin<T>(command: Command, work: (admin: Admin) => Promise<T>): Promise<T> {
  const dataDir = resolve(command.opts<{ data?: string }>().data ?? process.env.FOLIO_DATA ?? '.folio')
  // Most often: run from another folder than the server's (its ./.folio is elsewhere). The
  // serve banner prints this command with the --data it needs; say where to look.
  if (!(await stat(dataDir).catch(() => undefined))?.isDirectory()) {
    throw new UsageError(
      `${dataDir} is not a folio data folder: run this in the folder where folio serve --mode cloud runs (its banner prints this command), or name the server's data folder with --data (or FOLIO_DATA).`,
    )
  }
  const opened = await operations.openForAdmin(dataDir)
  if ('busyPid' in opened) return work(await remoteAdmin(dataDir, opened.busyPid))
  try {
    return await work(localAdmin(opened.deps))
  } catch (error) {
    if (error instanceof operations.AdminError) throw new CliError(error.message, error.kind === 'invalid' ? EXIT.usage : EXIT.failed, error.kind)
    throw error
  } finally {
    await opened.close()
  }
}

function localAdmin(deps: operations.AdminDeps): Admin {
  return {
    createWorkspace: (input) => operations.createWorkspace(deps, input),
    listWorkspaces: async () => operations.listWorkspaces(deps),
    setPlan: (id, plan) => operations.setPlan(deps, id, plan),
    members: async (id) => operations.members(deps, id),
    usage: (id) => operations.usage(deps, id),
    plans: async () => operations.plans(deps),
    replacePlans: (table) => operations.replacePlans(deps, table),
  }
}

async function remoteAdmin(dataDir: string, pid: number): Promise<Admin> {
  const file = await readAdminFile(dataDir)
  if (!file) {
    throw new CliError(
      `A folio server (pid ${pid}) is using ${dataDir}, and it left no admin.json: it is not in Cloud mode, or it is older. Stop it and run this again, or restart it with --mode cloud.`,
    )
  }
  const call = async <T>(method: string, path: string, body?: object): Promise<T> => {
    let response: Response
    try {
      response = await fetch(`${file.url}${path}`, {
        method,
        headers: { [ADMIN_TOKEN_HEADER]: file.token, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      })
    } catch (error) {
      throw new CliError(`The server using ${dataDir} (pid ${pid}) did not answer at ${file.url} (${(error as Error).message}).`, 1, 'server_unreachable')
    }
    const answer = (await response.json().catch(() => ({}))) as { error?: string; message?: string }
    if (!response.ok)
      throw new CliError(
        answer.message ?? answer.error ?? `HTTP ${response.status}`,
        response.status === 400 ? EXIT.usage : EXIT.failed,
        response.status === 404 ? 'not_found' : 'failed',
      )
    return answer as T
  }
  return {
    createWorkspace: (input) => call('POST', '/_admin/workspaces', input),
    listWorkspaces: () => call('GET', '/_admin/workspaces'),
    setPlan: (id, plan) => call('PUT', `/_admin/workspaces/${encodeURIComponent(id)}/plan`, { plan }),
    members: (id) => call('GET', `/_admin/workspaces/${encodeURIComponent(id)}/members`),
    usage: (id) => call('GET', id ? `/_admin/usage/${encodeURIComponent(id)}` : '/_admin/usage'),
    plans: () => call('GET', '/_admin/plans'),
    replacePlans: (table) => call('PUT', '/_admin/plans', table as object),
  }
}

const wantsJson = (command: Command) => Boolean(command.optsWithGlobals<GlobalOptions>().json)
const print = (command: Command, data: unknown, human: () => string) => printResult(wantsJson(command) ? JSON.stringify(data) : human())

export async function create(options: { name: string; plan?: string; owner?: string }, command: Command) {
  const made = await withAdmin(command, (admin) => admin.createWorkspace({ name: options.name, plan: options.plan, ownerEmail: options.owner }))
  print(command, made, () =>
    [
      `Workspace ${made.workspace.name} (${made.workspace.id}), plan ${made.workspace.plan}.`,
      'Its API key, shown this once (only its hash is kept):',
      made.apiKey,
    ].join('\n'),
  )
}

export async function list(_options: unknown, command: Command) {
  const all = await withAdmin(command, (admin) => admin.listWorkspaces())
  print(command, all, () =>
    all.length
      ? table(
          ['id', 'name', 'plan', 'members', 'key'],
          all.map((w) => [w.id, w.name, w.plan, String(w.members), w.hasKey ? 'active' : 'none']),
        )
      : 'No workspaces yet: folio admin workspace create --name <name>.',
  )
}

export async function plan(id: string, planName: string, _options: unknown, command: Command) {
  const ws = await withAdmin(command, (admin) => admin.setPlan(id, planName))
  print(command, ws, () => `${ws.name} (${ws.id}) is on the ${ws.plan} plan now.`)
}

export async function members(id: string, _options: unknown, command: Command) {
  const all = await withAdmin(command, (admin) => admin.members(id))
  print(command, all, () =>
    all.length
      ? table(
          ['email', 'role', 'joined'],
          all.map((m) => [m.email, m.role, m.joinedAt]),
        )
      : 'No members (the key is the only way in).',
  )
}

export async function usage(id: string | undefined, _options: unknown, command: Command) {
  const all = await withAdmin(command, (admin) => admin.usage(id))
  print(command, all, () =>
    table(
      ['id', 'name', 'plan', 'storage', 'AI messages this month'],
      all.map((u) => [
        u.id,
        u.name,
        u.plan,
        `${bytes(u.storageBytes)} of ${bytes(u.storageLimit)}`,
        u.aiMessagesThisMonth === null ? `? of ${u.aiMessagesLimit} (no server running)` : `${u.aiMessagesThisMonth} of ${u.aiMessagesLimit}`,
      ]),
    ),
  )
}

export async function plansCommand(file: string | undefined, _options: unknown, command: Command) {
  let given: unknown
  if (file !== undefined) {
    const text = await readFile(file, 'utf8').catch((error: Error) => {
      throw new UsageError(`Cannot read ${file}: ${error.message}`)
    })
    try {
      given = JSON.parse(text)
    } catch {
      throw new UsageError(
        `${file} is not JSON: give a plans table like {"free": {"requestsPerMinute": 120, "aiMessagesPerMonth": 50, "storageBytes": 104857600}}`,
      )
    }
    if (!given || typeof given !== 'object' || Array.isArray(given)) throw new UsageError(`${file} is not a JSON object of plans.`)
  }
  const inForce = await withAdmin(command, (admin) => (given === undefined ? admin.plans() : admin.replacePlans(given)))
  print(command, inForce, () =>
    [
      ...(given === undefined ? [] : ['The plans are now:']),
      table(
        ['plan', 'requests/min', 'AI messages/month', 'storage'],
        Object.entries(inForce).map(([name, p]) => [name, String(p.requestsPerMinute), String(p.aiMessagesPerMonth), bytes(p.storageBytes)]),
      ),
    ].join('\n'),
  )
}
