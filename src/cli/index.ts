import { Command, CommanderError, Option } from 'commander'
import { packageVersion } from '../version.js'
import { registerComments } from './commands/comments.js'
import { registerCreate } from './commands/create.js'
import { registerKeys } from './commands/keys.js'
import { registerLogin } from './commands/login.js'
import { registerReadCommands } from './commands/read.js'
import { registerServe } from './commands/serve.js'
import { registerStatus } from './commands/status.js'
import { registerSync } from './commands/sync.js'
import { registerTunnel } from './commands/tunnel.js'
import { registerUpload } from './commands/upload.js'
import { CliError } from './errors.js'
import { configureLogging, logger } from './logger.js'

/** Builds the program. Each command lives in its own file and loads its heavy parts lazily. */
export function buildProgram(): Command {
  const program = new Command('folio')
    .description('Publish HTML folios from your own machine and collect what viewers think of them.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .showSuggestionAfterError()
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .option('--server <url>', 'the folio server to talk to (default: $FOLIO_URL, the login profile, else http://127.0.0.1:3000)')
    .option('--key <key>', 'API key sent as a Bearer token (default: $FOLIO_API_KEY, else the login profile)')
    .option('--json', 'print machine-readable JSON instead of text (for scripts)')
    .addOption(new Option('-q, --quiet', 'print only results, warnings and errors').conflicts('verbose'))
    .option('--verbose', 'print debug lines too (folio serve: one line per request)')
    // Commander's own complaints (unknown option, missing argument) read like ours: folio: …
    .configureOutput({ outputError: (text) => logger().error(text.replace(/^error: /, '').trimEnd()) })
    .hook('preAction', (_program, command) => configureLogging(command.optsWithGlobals()))
    .addHelpText(
      'after',
      `
Examples:
  $ folio serve                              the server on http://127.0.0.1:3000, data in ./.folio
  $ folio create "Q3 review" --html deck.html --publish
  $ folio sync <id> ./site --watch           push every save
  $ folio status                             live views, reactions, comments and the tunnel
  $ folio comments <id>                      open comments; resolve, delete, --watch for new ones
  $ folio <command> --help                   every option of a command, with examples

Environment:
  FOLIO_URL          the server the commands talk to (like --server)
  FOLIO_API_KEY      the key the commands send (like --key); for folio serve, the key that guards
                     the sync endpoint (alias SERVICE_API_KEY)
  FOLIO_CONFIG_DIR   where folio login keeps its profile and sync remembers folders
                     (default ~/.config/folio)
  FOLIO_TUNNEL_HOST  your own localtunnel server for the public tunnel of folio serve
  BROWSER            the browser folio open (and o in folio status) starts
  PORT               default port of folio serve
  FOLIO_DATA         default data folder of folio serve
  FOLIO_RATE_LIMITS  per-client limits of the public endpoints, e.g. "public=600,analytics=600"
  FOLIO_MAX_COMMENTS, FOLIO_MAX_COMMENT_BYTES
                     what one folio's comments may reach (default 1000 and 4194304 bytes)
  FOLIO_LOG_LEVEL    silent, error, warn, info (default), debug or trace; --quiet and --verbose win

The saved login key is sent only to the login's own server: with --server or FOLIO_URL
pointing elsewhere, pass that server's key with --key or FOLIO_API_KEY.`,
    )
  registerServe(program)
  registerLogin(program)
  registerCreate(program)
  registerReadCommands(program)
  registerComments(program)
  registerUpload(program)
  registerSync(program)
  registerKeys(program)
  registerTunnel(program)
  registerStatus(program)
  return program
}

/** Commander's own outcomes that are not mistakes: help and version were asked for. */
const NOT_A_MISTAKE = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version'])

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

/** Runs the CLI and returns the exit code; nothing below here calls process.exit. */
export async function runMain(argv: string[]): Promise<number> {
  const program = buildProgram()
  ignoreClosedPipes()
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed what was wrong; say where the right form is.
      if (error.exitCode !== 0 && !NOT_A_MISTAKE.has(error.code)) {
        const command = error.code === 'commander.unknownCommand' ? undefined : commandOf(program, argv)
        logger().info(`See folio ${command ? `${command.name()} ` : ''}--help.`)
      }
      return error.exitCode
    }
    // The last line of a failed command: `folio: <message>` (the reporter adds the prefix), no stack.
    if (error instanceof CliError) {
      logger().error(error.message)
      return error.exitCode
    }
    logger().error((error as Error).message ?? String(error))
    return 1
  }
}
