import type { H3Event } from 'h3'
import { ERRORS } from '../../../api/errors.js'
import { readBodyBytes } from '../../http/body.js'
import { ApiError, fail } from '../../http/errors.js'
import { JSON_CONTENT_TYPE } from '../../route.js'

/** OAuth requests are small: a form of a few fields, client metadata of a few URIs. */
const OAUTH_BODY_BYTES = 64 * 1024

/**
 * An application/x-www-form-urlencoded body (RFC 6749 §3.2). A parameter sent twice is refused
 * (§3.1: parameters MUST NOT be included more than once).
 */
export async function readForm(event: H3Event): Promise<URLSearchParams> {
  const type = event.req.headers.get('content-type') ?? ''
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) throw fail(ERRORS.oauthInvalidRequest, 'The body must be application/x-www-form-urlencoded.')
  const bytes = await readBodyBytes(event, OAUTH_BODY_BYTES, () => fail(ERRORS.oauthInvalidRequest, 'The form is too large.'))
  const form = new URLSearchParams(bytes.toString('utf8'))
  const seen = new Set<string>()
  for (const name of form.keys()) {
    if (seen.has(name)) throw fail(ERRORS.oauthInvalidRequest, `${name} is sent more than once.`)
    seen.add(name)
  }
  return form
}

/** A JSON body of at most 64 KB (client registration). */
export async function readJson(event: H3Event): Promise<Record<string, unknown>> {
  const bytes = await readBodyBytes(event, OAUTH_BODY_BYTES, () => fail(ERRORS.oauthInvalidClientMetadata, 'The metadata is too large.'))
  let value: unknown
  try {
    value = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw fail(ERRORS.oauthInvalidClientMetadata, 'The body is not JSON.')
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw fail(ERRORS.oauthInvalidClientMetadata, 'The body must be a JSON object.')
  return value as Record<string, unknown>
}

/** An OAuth endpoint's JSON answer: never cached (RFC 6749 §5.1). */
export function oauthJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-store', pragma: 'no-cache', ...headers },
  })
}

/**
 * Errors of the OAuth endpoints as RFC 6749 §5.2 bodies: the code in `error` (what clients act
 * on: invalid_grant makes them authorize again, invalid_client register again), the reason in
 * `error_description`, and in `message`, as every other folio error.
 */
export function asOAuthError(error: unknown): Response {
  if (!(error instanceof ApiError)) throw error
  const body = error.detail ? { error: error.error, error_description: error.detail, message: error.detail } : { error: error.error }
  return oauthJson(body, error.status, error.headers)
}
