import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'

/** Spec: Organization (in agent authentication responses). */
export const Organization = z.object({ id: z.string().describe('UUID'), name: z.string(), plan: z.string() })

export const EmailAddress = z
  .string()
  .trim()
  .max(320)
  .pipe(z.email({ error: 'email must be an e-mail address' }))
const SessionId = z.string().min(1).max(100)
const Code = z.string().regex(/^\d{6}$/, { error: 'code must be the 6 digits of the e-mail' })

const AgentAuthBody = z.object({
  type: z.enum(['identity_assertion', 'anonymous'], {
    error: (issue) => (issue.input === undefined ? ERRORS.missingType.error : 'type must be identity_assertion or anonymous'),
  }),
  assertion: z.string({ error: ERRORS.invalidAssertionFormat.error }).max(16_384, { error: ERRORS.invalidAssertionFormat.error }).optional(),
  requested_credential_type: z.literal('api_key').optional(),
})

const Completed = z.object({
  status: z.literal('completed'),
  credential: z.object({ access_token: z.string(), token_type: z.literal('Bearer'), organization: Organization }),
})

const Pending = z.object({
  registration_session_id: z.string(),
  status: z.literal('pending_claim'),
  credential: z.object({
    token: z
      .string()
      .describe(
        'Cloud: a pre-claim key (folio_pre_ + 48 hex), a Bearer credential of a new workspace until expires_at. OSS: the server’s API key, which outlives expires_at',
      ),
    token_type: z.literal('APIKey'),
    expires_at: z.string().describe('ISO 8601: 15 minutes after registration'),
  }),
})

/**
 * The e-mail claim exists in Cloud only: in OSS, POST /api/agent/auth already answers with the
 * server's own key, which lasts (there is no pre-claim key to trade in, nor an account to join).
 */
const cloudOnly = {
  mode: 'cloud' as const,
  error: ERRORS.cloudOnly,
  message: 'This server (OSS) has nothing to claim: the token POST /api/agent/auth gave is its own API key, and it lasts until the key is rotated.',
}
const expired = when(ERRORS.sessionExpired, 'The registration session is past its 15 minutes, or unknown')

export const agentAuth = defineContract({
  operationId: 'agentAuth',
  method: 'POST',
  path: '/api/agent/auth',
  tag: 'Agent authentication',
  summary: 'Register an agent: an identity assertion gets a key at once, anonymous a pre-claim key',
  description:
    'Cloud: identity_assertion: an unsigned JWT (alg none) with an email or sub claim always makes a new workspace and returns its key; a JWT signed by an issuer the operator trusts (FOLIO_AGENT_ISSUERS) maps to the existing account of its verified email. anonymous: a registration session (15 minutes) with a pre-claim key; claim it by e-mail to get a lasting key. ' +
    'OSS: the body is checked the same way, then both types answer with the server’s own API key (the organization is the one local workspace; nothing to claim, the key lasts until rotated). It is given to the callers that could read it anyway: programs on this machine (unless FOLIO_API_KEY is set) and callers that send the key; anyone else gets 403.',
  access: 'public',
  rateLimit: 'auth',
  body: AgentAuthBody,
  bodyShapeError: ERRORS.missingType,
  response: { status: 200, description: 'completed (identity assertion) or pending_claim (anonymous)', schema: z.union([Completed, Pending]) },
  errors: [
    ERRORS.missingType,
    ERRORS.invalidAssertionFormat,
    ERRORS.assertionVerificationFailed,
    ERRORS.invalidBody,
    when(ERRORS.unauthorized, 'OSS: the Authorization header holds a wrong key'),
    when(
      ERRORS.forbidden,
      'OSS: a caller from elsewhere (another machine, the tunnel, a web page; or on this machine when FOLIO_API_KEY is set) sent no key, or an OAuth token',
    ),
    when(ERRORS.noApiKey, 'OSS: the key is revoked (folio keys rotate makes a new one)'),
    ERRORS.tooManyRequests,
  ],
})

export const agentClaim = defineContract({
  operationId: 'agentClaim',
  method: 'POST',
  path: '/api/agent/auth/claim',
  tag: 'Agent authentication',
  summary: 'Send a 6-digit code to an e-mail address to claim a registration session',
  description:
    'A new claim replaces the previous code. The code expires with the session and allows 5 attempts. A session sends at most 5 codes, and an address gets at most 10 an hour; only claims of live sessions count for the address (an unknown session is 410 at once, bounded by the per-client rate limit).',
  access: 'public',
  onlyIn: cloudOnly,
  rateLimit: 'auth',
  body: z.object({ email: EmailAddress, registration_session_id: SessionId }),
  response: {
    status: 200,
    description: 'The code is on its way',
    schema: z.object({ success: z.literal(true), status: z.literal('pending_claim'), expires_at: z.string() }),
  },
  errors: [ERRORS.cloudOnly, ERRORS.invalidBody, expired, ERRORS.registrationCompleted, ERRORS.mailFailed, ERRORS.tooManyRequests],
})

export const agentClaimComplete = defineContract({
  operationId: 'agentClaimComplete',
  method: 'POST',
  path: '/api/agent/auth/claim/complete',
  tag: 'Agent authentication',
  summary: 'Exchange the e-mailed code for a lasting key',
  description:
    "An address that already has an account joins that account's workspace (the code proves the address); any other gets the session's workspace, with itself as Owner.",
  access: 'public',
  onlyIn: cloudOnly,
  rateLimit: 'auth',
  body: z.object({ email: EmailAddress, code: Code, registration_session_id: SessionId }),
  response: {
    status: 200,
    description: 'The key (it does not expire)',
    schema: z.object({
      status: z.literal('completed'),
      credential: z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_at: z.null(), organization: Organization }),
    }),
  },
  errors: [ERRORS.cloudOnly, ERRORS.invalidBody, ERRORS.invalidCode, ERRORS.tooManyAttempts, expired, ERRORS.registrationCompleted, ERRORS.tooManyRequests],
})
