import type { Command } from 'commander'
import { ApiClientError, createClient, type FolioClient } from '../client/index.js'
import { CliError } from './errors.js'
import { toCliError } from './explain.js'
import { logger, printResult } from './logger.js'
import { readProfile } from './profile.js'
import { linkedFolio, linkedServer } from './link.js'
import { resolveTarget, serverSourceName, type Target, type TargetFlags } from './target.js'

export interface GlobalOptions {
  server?: string
  key?: string
  json?: boolean
  quiet?: boolean
  verbose?: boolean
}

export interface CliContext {
  client: FolioClient
  server: string
  /** Which server and key, and where each came from (for messages). */
  target: Target
  json: boolean
  /** Prints a result on stdout: JSON for scripts with --json, else the human text. Never filtered by the log level. */
  print(data: unknown, human: () => string): void
  /** Progress and notes for people (stderr, consola info); silent with --json, --quiet or a quieter FOLIO_LOG_LEVEL. */
  note(message: string): void
  /** Something the user should know even in a script (a skipped file): a consola warning, on stderr even with --json or --quiet. */
  warn(message: string): void
  /** A client error as one line with a next step: names the server, the key's source, the folio. */
  explain(error: unknown): never
  /** The same line as a string, for a message that wraps it. */
  describe(error: unknown): string
  /** The folio the command is about: the id given, else the linked folder's (link.ts); messages name it. */
  folioId(given: string | undefined): Promise<string>
}

/** The `<id>` argument of the running command, if it has one: "No folio <id>" messages name it. */
function folioIdArgument(command: Command): string | undefined {
  const index = command.registeredArguments.findIndex((argument) => argument.name() === 'id')
  const value = index >= 0 ? command.processedArgs[index] : undefined
  return typeof value === 'string' ? value : undefined
}

/** The target of a command run here: the flags, the environment, the login profile, the folder's link. */
export async function targetHere(flags: TargetFlags): Promise<Target> {
  return resolveTarget(flags, await readProfile(), process.env, await linkedServer())
}

/**
 * A 401 after a key was held back from a server only a folder's link named: the usual words, and
 * why the key given was not sent (target.ts), with the way to send it.
 */
function withWithheldKey(error: unknown, described: unknown, target: Target): unknown {
  if (!target.keyWithheld || !(error instanceof ApiClientError) || error.status !== 401 || !(described instanceof CliError)) return described
  const note = `The key from ${target.keyWithheld} was not sent: ${target.server} is named only by ${target.linkFile}, and a key goes to a server elsewhere only when you name it (--server ${target.server}, FOLIO_URL or folio login).`
  return new CliError(`${described.message} ${note}`, described.exitCode, described.code)
}

/** The server a command talks to and the key it sends (target.ts decides both). */
export async function cliContext(command: Command): Promise<CliContext> {
  const options = command.optsWithGlobals<GlobalOptions>()
  const target = await targetHere(options)
  const json = Boolean(options.json)
  const about = { ...target, folioId: folioIdArgument(command) }
  const describe = (error: unknown) => withWithheldKey(error, toCliError(error, about), target)
  return {
    client: createClient({ server: target.server, key: target.key }),
    server: target.server,
    target,
    json,
    print(data, human) {
      printResult(json ? JSON.stringify(data) : human())
    },
    note(message) {
      if (!json) logger().info(message)
    },
    warn(message) {
      logger().warn(message)
    },
    explain: (error) => {
      throw describe(error)
    },
    describe: (error) => (describe(error) as Error).message ?? String(error),
    async folioId(given) {
      const { id } = await linkedFolio(given, { server: target.server, named: serverSourceName(target.serverSource, target.linkFile) })
      about.folioId = id
      return id
    },
  }
}

/** Runs a command body with client errors explained. */
export async function withContext<T>(command: Command, body: (ctx: CliContext) => Promise<T>): Promise<T> {
  const ctx = await cliContext(command)
  try {
    return await body(ctx)
  } catch (error) {
    return ctx.explain(error)
  }
}

export const shareUrl = (ctx: CliContext, id: string) => `${ctx.server}/share/${id}`
