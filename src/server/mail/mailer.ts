import { hostname } from 'node:os'
import type { Transporter } from 'nodemailer'

export interface MailMessage {
  to: string
  subject: string
  text: string
}

/**
 * How the server sends e-mail: sign-in and claim codes, invitations, comment notifications.
 * With FOLIO_SMTP_URL (smtp://user:pass@host:587, smtps://… for TLS from the start) through
 * nodemailer; without it every message is written to the server's log instead, so an operator
 * trying Cloud mode on one machine can still sign in (the start says so, once).
 */
export interface Mailer {
  /** True when messages leave the machine; false when they only go to the log. */
  readonly delivers: boolean
  /** Resolves once the SMTP server accepted the message (or the log holds it). */
  send(message: MailMessage): Promise<void>
  close(): void
}

export interface MailerOptions {
  smtpUrl?: string
  /** The From address (FOLIO_MAIL_FROM); default folio@<this host>. */
  from?: string
  /** Where a message goes when there is no SMTP server, and the notice at start. */
  info: (line: string) => void
}

export const defaultMailFrom = () => `folio <folio@${hostname() || 'localhost'}>`

export function createMailer(options: MailerOptions): Mailer {
  const from = options.from || defaultMailFrom()
  if (!options.smtpUrl) {
    return {
      delivers: false,
      async send(message) {
        options.info(`E-mail to ${message.to} (FOLIO_SMTP_URL is not set, so it is written here): ${message.subject}\n${message.text}`)
      },
      close() {},
    }
  }
  // nodemailer is loaded with the first message: most servers send none, and it is their start-up's time.
  let transport: Promise<Transporter> | undefined
  const open = async () => {
    const nodemailer = (await import('nodemailer')).default
    // Short timeouts: a request waiting on a code must not hang for nodemailer's default minutes.
    return nodemailer.createTransport({ url: options.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 })
  }
  return {
    delivers: true,
    async send(message) {
      await (await (transport ??= open())).sendMail({ from, to: message.to, subject: message.subject, text: message.text })
    },
    close() {
      void transport?.then((opened) => opened.close()).catch(() => {})
    },
  }
}

/** What `folio serve` says at start about e-mail, in Cloud mode (where codes are mailed). */
export function mailNotice(mailer: Mailer): string {
  return mailer.delivers
    ? 'E-mail goes out through FOLIO_SMTP_URL.'
    : 'E-mail is not configured (set FOLIO_SMTP_URL, and FOLIO_MAIL_FROM): sign-in and claim codes are written to this log instead.'
}
