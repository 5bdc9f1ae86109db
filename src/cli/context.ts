import type { Command } from 'commander'
import { ApiClientError, createClient, type FolioClient, ServerUnreachableError } from '../client/index.js'
import { CliError } from './errors.js'
import { readProfile } from './profile.js'

export interface GlobalOptions {
  server?: string
  key?: string
  json?: boolean
}

export interface CliContext {
  client: FolioClient
  server: string
  /** Where the key came from, for messages. */
  keySource: 'flag' | 'environment' | 'profile' | 'none'
  json: boolean
  /** Prints a result: JSON for scripts with --json, else the human text. */
  print(data: unknown, human: () => string): void
  /** Progress and notes for people; silent with --json (stdout stays parseable). */
  note(message: string): void
}

/** The server a command talks to: --server, FOLIO_URL, the login profile, else the local default. */
export async function cliContext(command: Command): Promise<CliContext> {
  const options = command.optsWithGlobals<GlobalOptions>()
  const profile = await readProfile()
  const envKey = process.env.FOLIO_API_KEY || process.env.SERVICE_API_KEY || undefined
  const server = options.server ?? (process.env.FOLIO_URL || profile?.server || `http://127.0.0.1:${process.env.PORT || 3000}`)
  const key = options.key ?? envKey ?? profile?.key
  const keySource = options.key ? 'flag' : envKey ? 'environment' : profile?.key ? 'profile' : 'none'
  if (!/^https?:\/\//.test(server)) throw new CliError(`--server must be an http(s) URL, got ${JSON.stringify(server)}`)
  const json = Boolean(options.json)
  return {
    client: createClient({ server, key }),
    server: server.replace(/\/+$/, ''),
    keySource,
    json,
    print(data, human) {
      process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${human()}\n`)
    },
    note(message) {
      if (!json) process.stderr.write(`${message}\n`)
    },
  }
}

/** Turns client errors into one clear line and an exit code (2: the server is away). */
export function explain(error: unknown): never {
  if (error instanceof ServerUnreachableError) throw new CliError(error.message, 2)
  if (error instanceof ApiClientError) {
    const hint = error.status === 401 ? ' Pass the key with --key or FOLIO_API_KEY, or save it with `folio login`.' : ''
    throw new CliError(`${error.detail ? `${error.detail} (${error.error})` : `${error.error} (HTTP ${error.status})`}${hint}`)
  }
  throw error
}

/** Runs a command body with client errors explained. */
export async function withContext<T>(command: Command, body: (ctx: CliContext) => Promise<T>): Promise<T> {
  const ctx = await cliContext(command)
  try {
    return await body(ctx)
  } catch (error) {
    if (error instanceof CliError) throw error
    return explain(error)
  }
}

export const shareUrl = (ctx: CliContext, id: string) => `${ctx.server}/share/${id}`
