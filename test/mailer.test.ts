import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMailer, mailNotice } from '../src/server/mailer.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'

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
