import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentAuth, agentClaim, agentClaimComplete } from '../src/api/agent-auth.js'
import { requestSignInCode } from '../src/api/sign-in.js'
import { LogLevels } from '../src/log/logger.js'
import { createMailer, mailNotice } from '../src/server/mail/mailer.js'
import { testApi } from './helpers/api.js'
import { startTestServer } from './helpers/server.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'
import { closeClean } from './helpers/use-server.js'

let smtp: TestSmtpServer
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(() => smtp.close())

describe('mailer', () => {
  it('sends through FOLIO_SMTP_URL with nodemailer, from FOLIO_MAIL_FROM', async () => {
    const mailer = createMailer({ smtpUrl: smtp.url, from: 'Folio <codes@folio.test>', info: () => {} })
    expect(mailer.delivers).toBe(true)
    await mailer.send({ to: 'ada@example.com', subject: 'Your code: 123456', text: `Enter 123456.\nIt lasts 15 minutes — ünïcode too. ${'x'.repeat(100)}` })
    const mail = await smtp.next('ada@example.com')
    expect(mail).toMatchObject({ from: 'codes@folio.test', subject: 'Your code: 123456' })
    expect(mail.text).toBe(`Enter 123456.\nIt lasts 15 minutes — ünïcode too. ${'x'.repeat(100)}`)
    mailer.close()
  })

  it('rejects when the SMTP server cannot be reached', async () => {
    const mailer = createMailer({ smtpUrl: 'smtp://127.0.0.1:1', info: () => {} })
    await expect(mailer.send({ to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow()
    mailer.close()
  })

  it('without FOLIO_SMTP_URL writes each message to the log, and says so', async () => {
    const lines: string[] = []
    const mailer = createMailer({ info: (line) => lines.push(line) })
    expect(mailer.delivers).toBe(false)
    expect(mailNotice(mailer)).toMatch(/FOLIO_SMTP_URL.*written to this log/)
    await mailer.send({ to: 'bo@example.com', subject: 'Your code: 654321', text: 'Enter 654321.' })
    expect(lines).toEqual([expect.stringMatching(/^E-mail to bo@example\.com .*Your code: 654321\nEnter 654321\.$/)])
  })
})

describe('a Cloud server without FOLIO_SMTP_URL', () => {
  it('says so at start and writes claim codes to its log, where the operator can read them', async () => {
    const ts = await startTestServer({ mode: 'cloud', logLevel: LogLevels.info, config: { smtpUrl: undefined } })
    try {
      expect(ts.logs).toContain(
        '[mail] E-mail is not configured (set FOLIO_SMTP_URL, and FOLIO_MAIL_FROM): sign-in and claim codes are written to this log instead.',
      )
      const api = testApi(ts.url)
      const started = await api.send(agentAuth, { body: { type: 'anonymous' } })
      const registration_session_id = started.body.registration_session_id
      expect((await api.send(agentClaim, { body: { email: 'ops@example.com', registration_session_id } })).status).toBe(200)
      const line = ts.logs.find((l) => l.startsWith('[mail] E-mail to ops@example.com'))
      const code = /Your folio code: (\d{6})/.exec(line ?? '')?.[1]
      expect(code).toMatch(/^\d{6}$/)
      expect((await api.send(agentClaimComplete, { body: { email: 'ops@example.com', code, registration_session_id } })).status).toBe(200)
    } finally {
      await ts.close()
    }
  })
})

describe('OSS', () => {
  it('sends no codes: no e-mail claim nor sign-in, one workspace with its own key (agents get it from POST /api/agent/auth)', async () => {
    const ts = await startTestServer()
    try {
      const body = { email: 'a@example.com', registration_session_id: 'any' }
      for (const contract of [agentClaim, requestSignInCode]) {
        const reply = await testApi(ts.url).send(contract, { body })
        expect([reply.status, reply.body.error]).toEqual([403, 'Endpoint not available in OSS'])
      }
    } finally {
      await closeClean(ts)
    }
  })
})
