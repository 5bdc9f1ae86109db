import { agentAuth, agentClaim, agentClaimComplete } from '../../src/api/agent-auth.js'
import type { TestApi } from './api.js'
import type { TestSmtpServer } from './smtp-server.js'

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** Spec, Authentication 5: base64url(header).base64url(payload). — alg none, no signature. */
export function unsignedAssertion(claims: Record<string, unknown>): string {
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iat: Math.floor(Date.now() / 1000), aud: 'folio', ...claims })}.`
}

/** The 6-digit code in the newest mail to `email`. */
export async function codeMailedTo(smtp: TestSmtpServer, email: string): Promise<string> {
  const mail = await smtp.next(email)
  const code = /\b(\d{6})\b/.exec(mail.subject)?.[1]
  if (!code || !mail.text.includes(code)) throw new Error(`no code in the mail to ${email}: ${mail.subject}`)
  return code
}

/** Flow B up to the e-mailed code: the anonymous session, its pre-claim key, the claim sent. */
export async function claimByEmail(api: TestApi, smtp: TestSmtpServer, email: string) {
  const started = await api.send(agentAuth, { body: { type: 'anonymous' } })
  if (started.status !== 200) throw new Error(`anonymous registration: ${started.status} ${started.text}`)
  const sessionId: string = started.body.registration_session_id
  const claimed = await api.send(agentClaim, { body: { email, registration_session_id: sessionId } })
  if (claimed.status !== 200) throw new Error(`claim: ${claimed.status} ${claimed.text}`)
  const code = await codeMailedTo(smtp, email)
  return {
    sessionId,
    preClaimKey: started.body.credential.token as string,
    code,
    complete: (body: { code?: string; email?: string } = {}) =>
      api.send(agentClaimComplete, { body: { email, code, registration_session_id: sessionId, ...body } }),
  }
}
