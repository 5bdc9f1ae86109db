import { CommanderError } from 'commander'
import { CliError, EXIT } from './errors.js'
import { hasPrintedResult, logger, printResult } from './logger.js'

/** Commander's own outcomes that are not mistakes: help and version were asked for. */
const ASKED_FOR = new Set(['commander.helpDisplayed', 'commander.version'])

/**
 * Whether the line asks for JSON. Read from the words themselves: a usage mistake stops commander
 * before it has parsed the options, and the error must still come out as JSON.
 */
export function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json')
}

export interface Failure {
  exitCode: number
  /** The JSON `error`: a short stable word, or the server's own error string. */
  code: string
  message: string
}

/** What went wrong, as an exit code, a code for scripts and one line for people. */
export function failureOf(error: unknown): Failure {
  if (error instanceof CommanderError) {
    // Help without a command (plain `folio`) is shown because something was missing: a usage error.
    const exitCode = ASKED_FOR.has(error.code) || error.exitCode === 0 ? EXIT.ok : EXIT.usage
    const message = error.code === 'commander.help' ? 'No command given: folio --help lists the commands.' : error.message.replace(/^error: /, '').trim()
    return { exitCode, code: 'usage', message }
  }
  if (error instanceof CliError) return { exitCode: error.exitCode, code: error.code, message: error.message }
  return { exitCode: EXIT.failed, code: 'failed', message: (error as Error)?.message ?? String(error) }
}

/**
 * The one place a failed command speaks: with --json a single `{error, message}` document on
 * stdout (whatever the log level: it is the result), else `folio: <message>` on stderr.
 * Commander already printed its own complaint in text mode (configureOutput in index.ts).
 * A command that did part of its work (create without an unreadable file, a sync that left one
 * out) printed its result already: stdout stays one JSON document, the failure goes to stderr
 * and the exit code.
 */
export function reportFailure(failure: Failure, options: { json: boolean; printedByCommander: boolean }): void {
  if (failure.exitCode === EXIT.ok) return
  if (options.json && !hasPrintedResult()) return printResult(JSON.stringify({ error: failure.code, message: failure.message }))
  if (!options.printedByCommander) logger().error(failure.message)
}
