import { createLogger, createResultPrinter, LOG_LEVEL_NAMES, type Logger, LogLevels, parseLogLevel } from '../log/logger.js'
import { UsageError } from './errors.js'

export interface LogFlags {
  quiet?: boolean
  verbose?: boolean
}

/**
 * The CLI's log level: --quiet (warnings and errors) or --verbose (debug lines, e.g. every request
 * of folio serve), else FOLIO_LOG_LEVEL, else info. Flags beat the environment. A FOLIO_LOG_LEVEL
 * that is not a level is an error, unless a flag makes it irrelevant.
 */
export function logLevelFor(flags: LogFlags, env: NodeJS.ProcessEnv = process.env): number {
  if (flags.quiet) return LogLevels.warn
  if (flags.verbose) return LogLevels.debug
  const named = env.FOLIO_LOG_LEVEL?.trim()
  if (!named) return LogLevels.info
  const level = parseLogLevel(named)
  if (level === undefined) throw new UsageError(`FOLIO_LOG_LEVEL must be one of ${LOG_LEVEL_NAMES.join(', ')} (or a number), got ${JSON.stringify(named)}.`)
  return level
}

/** The level before the flags are known (commander's own errors): the environment's, or info. */
function levelFromEnvironment(): number {
  try {
    return logLevelFor({})
  } catch {
    return LogLevels.info
  }
}

let instance: Logger | undefined
let printer: ((text: string) => void) | undefined

/** The CLI's one logger: notes, warnings, errors and debug lines, all on stderr. */
export function logger(): Logger {
  return (instance ??= createLogger({ level: levelFromEnvironment() }))
}

/** Sets the level once the command's flags are parsed (before its action runs). */
export function configureLogging(flags: LogFlags): void {
  logger().level = logLevelFor(flags)
}

/** A command's result on stdout, whatever the log level. */
export function printResult(text: string): void {
  resultPrinted = true
  ;(printer ??= createResultPrinter())(text)
}

let resultPrinted = false
/** Whether this run already put a result on stdout (a command that did part of its work). */
export const hasPrintedResult = () => resultPrinted

/** Whether notes (info) are shown: progress bars and banners follow the same switch. */
export const showsNotes = () => logger().level >= LogLevels.info
