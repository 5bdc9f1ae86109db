/** The server answered with an error: its stable `error` string and its sentence for people. */
export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly detail?: string,
    readonly headers?: Headers,
  ) {
    super(detail ? `${error}: ${detail}` : `${error} (HTTP ${status})`)
  }
}

/** Nothing answered at the server URL. */
export class ServerUnreachableError extends Error {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(`Cannot reach the folio server at ${server} (${reason}). Start one with \`folio serve\`, or point at yours with --server / FOLIO_URL.`)
  }
}
