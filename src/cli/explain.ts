import { ApiClientError, ServerUnreachableError } from '../client/index.js'
import { CliError, EXIT } from './errors.js'
import type { Target } from './target.js'

/** What a message may name: the server, where the key came from, the folio the command is about. */
export interface ExplainAbout extends Partial<Pick<Target, 'server' | 'keySource' | 'keyLabel' | 'profileServerNotUsed'>> {
  folioId?: string
}

/** A refused key and a missing key need different next steps: say which one it was. */
function unauthorized(about: ExplainAbout): string {
  const server = about.server ?? 'the server'
  if (about.keySource && about.keySource !== 'none') {
    return `The key from ${about.keyLabel} was refused by ${server}: it is not that server's key (rotated or revoked?). Pass the right one with --key or FOLIO_API_KEY, or save it with folio login.`
  }
  const elsewhere = about.profileServerNotUsed ? ` (The login profile's key belongs to ${about.profileServerNotUsed} and is only sent there.)` : ''
  return `${server} needs an API key for this: pass it with --key or FOLIO_API_KEY, or save it with folio login.${elsewhere}`
}

const serverSentence = (error: ApiClientError) => (error.detail ? `${error.detail} (${error.error})` : `${error.error} (HTTP ${error.status})`)

/**
 * The CliError a client error becomes: one clear line with a next step. Its code (the JSON
 * `error`) is the server's own error string, or server_unreachable. Other errors pass through.
 */
export function toCliError(error: unknown, about: ExplainAbout = {}): unknown {
  if (error instanceof CliError) return error
  if (error instanceof ServerUnreachableError) return new CliError(error.message, EXIT.failed, 'server_unreachable')
  if (error instanceof ApiClientError) {
    const failed = (message: string) => new CliError(message, EXIT.failed, error.error)
    if (error.status === 401) return failed(unauthorized(about))
    if (error.status === 404 && about.folioId && /not found/i.test(error.error)) {
      return failed(`No folio ${about.folioId} on ${about.server ?? 'the server'}; folio list shows the folios there.`)
    }
    return failed(serverSentence(error))
  }
  return error
}

/** Throws the error as toCliError words it. */
export function explain(error: unknown, about: ExplainAbout = {}): never {
  throw toCliError(error, about)
}
