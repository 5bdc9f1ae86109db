import { inspect, styleText } from 'node:util'
import { type ConsolaInstance, type ConsolaReporter, createConsola, type LogLevel, LogLevels, type LogObject, type LogType } from 'consola/core'

/**
 * One consola instance per program (the CLI builds it once, `folio serve` hands it to the server),
 * with one line format: `folio: <message>` for errors and warnings, the message alone for notes,
 * `[tag]` before messages of a part (http, tunnel, store). Colours only on a terminal that wants
 * them; plain lines in pipes and logs. consola/core, not consola's main entry: that one builds a
 * default instance and probes the environment on import, which every `folio --help` would pay for.
 */
export type Logger = ConsolaInstance
export { type LogLevel, LogLevels }

/** The level names FOLIO_LOG_LEVEL documents, quietest first (consola's other names and numbers work too). */
export const LOG_LEVEL_NAMES = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const

/** A level given by name (any of consola's) or number; undefined when it is neither. */
export function parseLogLevel(value: string): LogLevel | undefined {
  const name = value.trim().toLowerCase()
  if (Object.hasOwn(LogLevels, name)) return LogLevels[name as LogType]
  if (/^-?\d+$/.test(name)) return Number(name)
  return undefined
}

/** Whether a stream is a terminal that shows colours (node honours NO_COLOR, FORCE_COLOR and TERM=dumb). */
export function wantsColors(stream: NodeJS.WritableStream): boolean {
  const tty = stream as NodeJS.WriteStream
  return Boolean(tty.isTTY && tty.hasColors?.())
}

type Style = Parameters<typeof styleText>[0]
export const paint = (colors: boolean, style: Style, text: string) => (colors ? styleText(style, text) : text)

/** The text of one log line, without its newline. */
export function formatLine(log: LogObject, colors: boolean): string {
  // Each argument on its own (not util.format): a "%s" or "%%" in a path stays as it is.
  const message = log.args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg, { colors }))).join(' ')
  const tag = log.tag ? `${paint(colors, 'gray', `[${log.tag}]`)} ` : ''
  if (log.level <= LogLevels.warn) {
    const prefix = paint(colors, [log.level <= LogLevels.error ? 'red' : 'yellow', 'bold'], 'folio:')
    return `${prefix} ${tag}${message}`
  }
  if (log.level >= LogLevels.debug) return `${tag}${paint(colors, 'dim', message)}`
  return `${tag}${message}`
}

/** Every log line goes to stderr: stdout carries only results (see createResultPrinter). */
export class LineReporter implements ConsolaReporter {
  log(log: LogObject, ctx: { options: { stderr?: NodeJS.WriteStream } }): void {
    const stream = ctx.options.stderr ?? process.stderr
    stream.write(`${formatLine(log, wantsColors(stream))}\n`)
  }
}

export interface LoggerOptions {
  level?: LogLevel
  stderr?: NodeJS.WriteStream
  /** Instead of writing lines (tests capture log objects this way). */
  reporters?: ConsolaReporter[]
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const stderr = options.stderr ?? process.stderr
  return createConsola({
    level: options.level ?? LogLevels.info,
    reporters: options.reporters ?? [new LineReporter()],
    stdout: stderr,
    stderr,
    // consola folds a line repeated within a second into "(repeated n times)", later, by a timer:
    // every request line and warning is wanted, in order, when it happens.
    throttle: 0,
    formatOptions: { date: false, colors: false, compact: true },
  })
}

/**
 * The results of commands (a list, a URL, the JSON for scripts) on stdout, through consola like
 * everything else but never filtered by the log level: --quiet and FOLIO_LOG_LEVEL=silent quiet
 * the chatter, not the answer. Written as given: no prefix, no colour added.
 */
export function createResultPrinter(stdout: NodeJS.WriteStream = process.stdout): (text: string) => void {
  const printer = createConsola({
    level: LogLevels.verbose,
    reporters: [{ log: (log) => stdout.write(`${log.args.join(' ')}\n`) }],
    throttle: 0,
  })
  return (text) => printer.log(text)
}
