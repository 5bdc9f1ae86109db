import { randomUUID } from 'node:crypto'
import type { H3Event } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { SESSION_MS } from './agent-registration.js'
import { bearerToken, DENIED, unauthorized } from '../auth/auth.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { readAssertion, type TrustedIssuers } from './identity-assertions.js'

/** What this file takes from the server's context. */
export type LocalAgentRegistrationDeps = Pick<ServerContext, 'auth' | 'keys' | 'store'>

/** The registration body, as the contract has checked it. */
export interface AgentAuthRequest {
  type: 'identity_assertion' | 'anonymous'
  assertion?: string
}

const ELSEWHERE =
  'Registering hands out this server’s API key, so only programs on this machine get it without one (none do when FOLIO_API_KEY is set). ' +
  'Send the key instead, as Authorization: Bearer <API key>: folio keys show prints it on the server’s machine.'

/**
 * OSS's agent registration (spec: Agent authentication). OSS has one workspace and one key, so
 * registering cannot make anything: it hands the key to the callers that may read it anyway
 * (GET /api/keys: `guarded`), in the spec's answer shapes. The body is judged first, exactly as
 * in Cloud, wherever the caller is; only then whether the caller may have the key.
 */
export function localAgentRegistration(ctx: LocalAgentRegistrationDeps, issuers: TrustedIssuers) {
  const organization = async () => {
    // The spec's organization id is a UUID: made once per data dir, so an agent sees the same one each time.
    const { id } = await ctx.store.settings.ensure<{ id: string }>(
      'organization',
      () => ({ id: randomUUID() }),
      (stored) => typeof stored.id === 'string',
    )
    return { id, name: 'Local workspace', plan: 'oss' }
  }

  return async (event: H3Event, body: AgentAuthRequest) => {
    // Validation first: format, then claims (400, 401), as Cloud answers them.
    if (body.type === 'identity_assertion') await readAssertion(body.assertion, issuers)
    const key = keyFor(ctx, event)
    if (body.type === 'identity_assertion') {
      return { status: 'completed' as const, credential: { access_token: key, token_type: 'Bearer' as const, organization: await organization() } }
    }
    // The spec's anonymous answer: nothing waits to be claimed here, but clients read these fields.
    return {
      registration_session_id: randomUUID(),
      status: 'pending_claim' as const,
      credential: { token: key, token_type: 'APIKey' as const, expires_at: new Date(Date.now() + SESSION_MS).toISOString() },
    }
  }
}

/** The key, for a caller that could read it with GET /api/keys; else why not. */
function keyFor(ctx: LocalAgentRegistrationDeps, event: H3Event): string {
  const principal = ctx.auth.resolveEvent(event, 'guarded')
  // A wrong key is 401 everywhere (auth.ts); no key at all is a question of where the caller is.
  if (principal === DENIED && bearerToken(event.req.headers.get('authorization')) !== undefined) throw unauthorized('oss')
  if (principal === DENIED || !principal) throw fail(ERRORS.forbidden, ELSEWHERE)
  // An application authorized with OAuth works with folios; it is never handed the key (server/auth/key-routes.ts).
  if (principal.via !== 'open' && principal.via !== 'api-key') throw fail(ERRORS.forbidden, 'An OAuth token cannot be exchanged for the API key.')
  const key = ctx.keys.current()
  if (!key) throw fail(ERRORS.noApiKey, 'No key is active: make one with folio keys rotate (POST /api/keys), then register again.')
  return key
}
