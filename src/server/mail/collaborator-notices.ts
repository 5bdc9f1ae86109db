import type { FolioMeta } from '../../domain/model.js'
import type { Mailer } from './mailer.js'

/** The addresses among a folio's collaborators (the field takes any strings; only addresses get mail). */
export function collaboratorAddresses(meta: Pick<FolioMeta, 'collaborators'>): string[] {
  const out = new Set<string>()
  for (const entry of meta.collaborators ?? []) {
    if (typeof entry !== 'string') continue
    const address = entry.trim().toLowerCase()
    if (/^[^\s@]+@[^\s@]+$/.test(address)) out.add(address)
  }
  return [...out]
}

/** Whether this (proven) address is a collaborator of the folio. */
export const isCollaborator = (meta: Pick<FolioMeta, 'collaborators'>, email: string) => collaboratorAddresses(meta).includes(email.toLowerCase())

export interface NewCommentNotice {
  meta: Pick<FolioMeta, 'id' | 'title' | 'collaborators'>
  comment: { author: string; text: string; filename: string }
  /** The share page, where the comment shows. */
  shareUrl: string
}

/**
 * E-mails each collaborator (one message each: they do not see each other's addresses) about a
 * new comment, in the background: the comment's answer never waits for mail, and a mail server
 * that fails costs one log line, never the comment. The access key is never in the message.
 */
export function notifyCollaborators(deps: { mailer: Mailer; log: (message: string) => void }, notice: NewCommentNotice): Promise<void> {
  const author = notice.comment.author.trim().toLowerCase()
  const recipients = collaboratorAddresses(notice.meta).filter((address) => address !== author)
  const text = [
    `${notice.comment.author} commented on “${notice.meta.title}” (${notice.comment.filename}):`,
    '',
    ...notice.comment.text.split('\n').map((line) => `> ${line}`),
    '',
    `See it on the page: ${notice.shareUrl}`,
    '',
    'You get this because you are a collaborator of this folio.',
  ].join('\n')
  return (async () => {
    for (const to of recipients) {
      try {
        await deps.mailer.send({ to, subject: `New comment on “${notice.meta.title}”`, text })
      } catch (error) {
        deps.log(`Could not e-mail a collaborator of folio ${notice.meta.id} about a new comment: ${(error as Error).message}`)
      }
    }
  })()
}
