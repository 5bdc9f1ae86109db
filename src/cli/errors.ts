/**
 * What folio's exit codes mean (folio --help lists them): 0 done, 1 the work failed, 2 the
 * command line was wrong (nothing was tried), 130 interrupted with work not done.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const

/**
 * A failure the user can act on: printed as one line (with --json: `{error, message}` on stdout),
 * with the exit code. `code` is the JSON `error`: a short stable word for failures of the CLI
 * itself, the spec's exact string for what the server refused.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
    readonly code: string = 'failed',
  ) {
    super(message)
  }
}

/** The command line asks for something that cannot be done as written (options that do not go together, a bad value). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage, 'usage')
  }
}
