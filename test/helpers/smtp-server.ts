import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  /** The envelope's recipients. */
  to: string[]
  from: string
  subject: string
  /** The text body, transfer encoding undone. */
  text: string
}

export interface TestSmtpServer {
  /** smtp://127.0.0.1:<port>: what FOLIO_SMTP_URL would hold. */
  url: string
  received: ReceivedMail[]
  /** The next mail to `to` (one already received and not yet taken counts), within `timeoutMs`. */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>
  close(): Promise<void>
}

/**
 * A real SMTP server on loopback (the smtp-server package, nodemailer's sibling): the server
 * under test sends through nodemailer exactly as it would to a provider, and tests read what
 * arrived. No TLS, no authentication: loopback only.
 */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = []
  const taken = new Set<ReceivedMail>()
  const waiters = new Set<() => void>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        const envelope = session.envelope
        received.push({
          to: envelope.rcptTo.map((r) => r.address),
          from: envelope.mailFrom ? envelope.mailFrom.address : '',
          ...parseMessage(raw),
        })
        for (const wake of waiters) wake()
        callback()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.server.address() as AddressInfo

  const find = (to: string) => received.find((m) => !taken.has(m) && m.to.includes(to))
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async next(to, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const mail = find(to)
        if (mail) {
          taken.add(mail)
          return mail
        }
        if (Date.now() >= deadline)
          throw new Error(`no mail to ${to} within ${timeoutMs} ms (received: ${received.map((m) => m.to.join(',')).join('; ') || 'none'})`)
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake)
            clearTimeout(timer)
            resolve()
          }
          const timer = setTimeout(wake, deadline - Date.now())
          waiters.add(wake)
        })
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Headers and the text of a single-part message as nodemailer writes one (7bit, quoted-printable or base64). */
function parseMessage(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const body = raw.slice(split + 4)
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? ''
  const encoding = header('Content-Transfer-Encoding').toLowerCase()
  let text = body
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    text = Buffer.from(bytes, 'latin1').toString('utf8')
  } else if (encoding === 'base64') {
    text = Buffer.from(body, 'base64').toString('utf8')
  }
  return { subject: decodeWords(header('Subject')), text: text.replace(/\r\n/g, '\n').trimEnd() }
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= / =?UTF-8?B?…?=) in a header. */
function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_, kind: string, data: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(
          data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  )
}
