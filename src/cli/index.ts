import { Command, CommanderError } from 'commander'
import { packageVersion } from '../version.js'
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
    .addHelpText(
      'after',
      `
Examples:
  $ folio serve                              the server on http://127.0.0.1:3000, data in ./.folio
  $ folio create "Q3 review" --html deck.html --publish
  $ folio sync <id> ./site --watch           push every save
  $ folio status                             live views, reactions, comments and the tunnel
  $ folio <command> --help                   every option of a command, with examples

Environment:
  PORT            default port of folio serve
  FOLIO_DATA      default data folder of folio serve
  FOLIO_API_KEY   API key that guards the sync endpoint (alias SERVICE_API_KEY)
  FOLIO_RATE_LIMITS  per-client limits of the public endpoints, e.g. "public=600,analytics=600"`,
    )
  registerServe(program)
  registerLogin(program)
  registerCreate(program)
  registerReadCommands(program)
  registerUpload(program)
  registerSync(program)
  registerKeys(program)
  registerTunnel(program)
  registerStatus(program)
  return program
}

/** Runs the CLI and returns the exit code; nothing below here calls process.exit. */
export async function runMain(argv: string[]): Promise<number> {
  const program = buildProgram()
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode
    if (error instanceof CliError) {
      process.stderr.write(`folio: ${error.message}\n`)
      return error.exitCode
    }
    process.stderr.write(`folio: ${(error as Error).message ?? String(error)}\n`)
    return 1
  }
}
