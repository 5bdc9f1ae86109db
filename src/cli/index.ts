import { versionLine } from '../package-files.js'
import { Command, CommanderError, Option } from 'commander'
import { packageVersion } from '../version.js'
import { registerAdmin } from './commands/admin.js'
import { registerAi } from './commands/ai.js'
import { registerComments } from './commands/comments.js'
import { registerLinks } from './commands/links.js'
import { registerCreate } from './commands/create.js'
import { registerDb } from './commands/db.js'
import { registerKeys } from './commands/keys.js'
import { registerLogin } from './commands/login.js'
import { registerReadCommands } from './commands/read.js'
import { registerServe } from './commands/serve.js'
import { registerStatus } from './commands/status.js'
import { registerSync } from './commands/sync.js'
import { registerTunnel } from './commands/tunnel.js'
import { registerUpload } from './commands/upload.js'
import { registerCompletion } from './commands/completion.js'
import { registerManage } from './commands/manage.js'
import { registerMcp } from './commands/mcp.js'
import { registerOAuth } from './commands/oauth.js'
import { EXIT } from './errors.js'
import { failureOf, reportFailure, wantsJson } from './failure.js'
import { configureLogging, logger } from './logger.js'
import { PROGRAM_HELP } from './program-help.js'

/**
 * Builds the program. Each command lives in its own file and loads its heavy parts lazily.
 * With `json`, commander's own complaints stay unprinted: runMain prints them as JSON.
 */
export function buildProgram({ json = false }: { json?: boolean } = {}): Command {
  const program = new Command('folio')
    .description('Publish HTML folios from your own machine and collect what viewers think of them.')
    .version(versionLine(packageVersion()), '-v, --version', 'print the version (and, for the single executable, the Node it embeds)')
    .helpOption('-h, --help', 'show help for a command')
    .showSuggestionAfterError()
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .option('--server <url>', 'the folio server to talk to (default: $FOLIO_URL, the login profile, the linked folder’s server, else http://127.0.0.1:3000)')
    .option('--key <key>', 'API key sent as a Bearer token (default: $FOLIO_API_KEY, else the login profile)')
    .option('--json', 'print machine-readable JSON instead of text (for scripts)')
    .addOption(new Option('-q, --quiet', 'print only results, warnings and errors').conflicts('verbose'))
    .option('--verbose', 'print debug lines too (folio serve: one line per request)')
    // Commander's own complaints (unknown option, missing argument) read like ours: folio: …
    .configureOutput({ outputError: (text) => (json ? undefined : logger().error(text.replace(/^error: /, '').trimEnd())) })
    .hook('preAction', (_program, command) => configureLogging(command.optsWithGlobals()))
    .addHelpText('after', PROGRAM_HELP)
  registerServe(program)
  registerLogin(program)
  registerCreate(program)
  registerReadCommands(program)
  registerAi(program)
  registerManage(program)
  registerComments(program)
  registerLinks(program)
  registerUpload(program)
  registerSync(program)
  registerKeys(program)
  registerTunnel(program)
  registerStatus(program)
  registerAdmin(program)
  registerMcp(program)
  registerOAuth(program)
  registerDb(program)
  registerCompletion(program)
  return program
}

/** The command a mistyped line was meant for: the first word that is not an option (or its value). */
function commandOf(program: Command, argv: string[]): Command | undefined {
  const takesValue = new Set(['--server', '--key'])
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    if (takesValue.has(word)) i++
    else if (!word.startsWith('-')) return program.commands.find((c) => c.name() === word || c.aliases().includes(word))
  }
  return undefined
}

/**
 * A reader that stops early (folio status --json | head -1) closes the pipe: the rest of the
 * output has nowhere to go, which is not an error worth a stack trace.
 */
function ignoreClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error
    })
  }
}

/** Runs the CLI and returns the exit code (folio --help lists what each means); nothing below here calls process.exit. */
export async function runMain(argv: string[]): Promise<number> {
  const json = wantsJson(argv)
  const program = buildProgram({ json })
  ignoreClosedPipes()
  try {
    await program.parseAsync(argv, { from: 'user' })
    return EXIT.ok
  } catch (error) {
    const failure = failureOf(error)
    const byCommander = error instanceof CommanderError
    reportFailure(failure, { json, printedByCommander: byCommander })
    // After commander's own complaint (text only): say where the right form is.
    if (byCommander && failure.exitCode === EXIT.usage && !json && error.code !== 'commander.help') {
      const command = error.code === 'commander.unknownCommand' ? undefined : commandOf(program, argv)
      logger().info(`See folio ${command ? `${command.name()} ` : ''}--help.`)
    }
    return failure.exitCode
  }
}
