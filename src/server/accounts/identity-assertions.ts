import { readFileSync } from 'node:fs'
import { createLocalJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose'
import { ERRORS } from '../../api/errors.js'
import { fail } from '../http/errors.js'

/** Who an identity assertion says the agent acts for, and whether anyone vouches for it. */
export interface AssertedIdentity {
  email?: string
  sub?: string
  /** True only when an issuer the operator trusts signed it: then `email` is proven. */
  verified: boolean
}

interface TrustedIssuer {
  key: Uint8Array | JWTVerifyGetKey
  audience?: string
}

export type TrustedIssuers = ReadonlyMap<string, TrustedIssuer>

/**
 * FOLIO_AGENT_ISSUERS: the issuers whose signed assertions are believed, as JSON (or the path of
 * a JSON file): `{ "<iss>": { "secret": "<HS256 secret>" } | { "jwks": "<path of a JWKS file>" },
 * "audience"?: "<aud they must name>" }`. Anything malformed stops the start: a typo must not
 * quietly trust nobody (or, worse, somebody).
 */
export function loadTrustedIssuers(value: string | undefined): TrustedIssuers {
  const issuers = new Map<string, TrustedIssuer>()
  if (!value?.trim()) return issuers
  const inline = /^[[{]/.test(value.trim())
  const text = inline ? value : readConfigFile(value.trim())
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new Error('FOLIO_AGENT_ISSUERS is not JSON (nor the path of a JSON file)')
  }
  if (!isObject(parsed)) throw new Error('FOLIO_AGENT_ISSUERS must be an object: issuer → { secret } or { jwks }')
  for (const [iss, entry] of Object.entries(parsed)) {
    if (!isObject(entry)) throw new Error(`FOLIO_AGENT_ISSUERS: ${iss} must be { secret } or { jwks }`)
    const audience = typeof entry.audience === 'string' ? entry.audience : undefined
    if (typeof entry.secret === 'string' && entry.secret.length >= 32) {
      issuers.set(iss, { key: new TextEncoder().encode(entry.secret), audience })
    } else if (typeof entry.jwks === 'string') {
      const jwks = JSON.parse(readConfigFile(entry.jwks)) as Parameters<typeof createLocalJWKSet>[0]
      issuers.set(iss, { key: createLocalJWKSet(jwks), audience })
    } else {
      throw new Error(`FOLIO_AGENT_ISSUERS: ${iss} needs a secret of at least 32 characters (HS256) or a jwks file path`)
    }
  }
  return issuers
}

/**
 * Reads an identity assertion (spec: Authentication 5). Unsigned (alg none, empty signature): the
 * email or sub claim is taken as said and proves nothing. Signed: only by a trusted issuer, and
 * only if the signature, the issuer, the audience (when configured) and the times check out.
 */
export async function readAssertion(assertion: string | undefined, issuers: TrustedIssuers): Promise<AssertedIdentity> {
  const parts = assertion?.split('.')
  if (!assertion || parts?.length !== 3)
    throw fail(
      ERRORS.invalidAssertionFormat,
      'Send base64url(header).base64url(payload). — three dot-separated parts, the last empty for an unsigned assertion.',
    )
  const header = decodePart(parts[0]!)
  const payload = decodePart(parts[1]!)
  if (!header || !payload) throw fail(ERRORS.invalidAssertionFormat, 'The header and payload must be base64url-encoded JSON objects.')
  const email = typeof payload.email === 'string' && payload.email.includes('@') ? payload.email.trim().toLowerCase() : undefined
  const sub = typeof payload.sub === 'string' && payload.sub.trim() ? payload.sub.trim() : undefined
  if (parts[2] === '') {
    if (!email && !sub) throw verificationFailed('The assertion needs an email or sub claim.')
    return { email, sub, verified: false }
  }
  const issuer = typeof payload.iss === 'string' ? issuers.get(payload.iss) : undefined
  if (!issuer) throw verificationFailed('The assertion is signed, but not by an issuer this server trusts (send it unsigned to register a new workspace).')
  try {
    const { payload: verified } = await jwtVerify(assertion, issuer.key as Uint8Array, {
      issuer: payload.iss as string,
      audience: issuer.audience,
      algorithms: issuer.key instanceof Uint8Array ? ['HS256'] : undefined,
    })
    if (verified.email_verified === false) throw new Error('email not verified by the issuer')
    if (!email && !sub) throw new Error('no email or sub claim')
    return { email, sub, verified: Boolean(email) }
  } catch {
    throw verificationFailed('The signature, issuer, audience or validity period of the assertion does not check out.')
  }
}

function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new Error(`FOLIO_AGENT_ISSUERS: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
  }
}

const verificationFailed = (message: string) => fail(ERRORS.assertionVerificationFailed, message)

function decodePart(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
    return isObject(value) ? value : undefined
  } catch {
    return undefined
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
