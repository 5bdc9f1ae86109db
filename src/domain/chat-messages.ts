/**
 * What a chat integration receives for a new comment (spec, Notifications: the payload is ours
 * to choose). The text comes from viewers, so it is quoted so it cannot ping a channel or forge
 * a link, and cut to a size every chat tool takes. Never an access key: only the title, the
 * author, the text and the share page's link.
 */
export type ChatFormat = 'slack' | 'discord' | 'teams'

export interface CommentNotice {
  folioTitle: string
  author: string
  text: string
  /** The folio's share page (no key in it: a private folio asks the viewer for its key). */
  link: string
}

const MAX_TEXT = 1_000

/** The format a webhook URL most likely wants, when its owner did not say. */
export function chatFormatFor(url: string): ChatFormat {
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase()
  } catch {
    return 'slack'
  }
  if (/(^|\.)(discord|discordapp)\.com$/.test(host)) return 'discord'
  if (/(^|\.)(webhook\.office\.com|logic\.azure\.com|powerplatform\.com|powerautomate\.com)$/.test(host)) return 'teams'
  return 'slack'
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** Slack's mrkdwn: &, < and > are its only control characters (<!channel>, <url|label>). */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** Discord markdown: backslash-escape what would format or link; mentions are off in the payload. */
const discordEscape = (text: string) => text.replace(/([\\*_`~|>[\]()#-])/g, '\\$1')

export function chatPayload(format: ChatFormat, notice: CommentNotice): object {
  const title = cut(notice.folioTitle, 200)
  const author = cut(notice.author, 120)
  const text = cut(notice.text, MAX_TEXT)
  switch (format) {
    case 'slack': {
      const quoted = slackEscape(text).replace(/^/gm, '>')
      return { text: `New comment on <${notice.link}|${slackEscape(title)}> by ${slackEscape(author)}:\n${quoted}` }
    }
    case 'discord':
      return {
        content: cut(
          `New comment on [${discordEscape(title)}](<${notice.link}>) by ${discordEscape(author)}:\n${discordEscape(text).replace(/^/gm, '> ')}`,
          2_000,
        ),
        // Viewer text must never ping @everyone, a role or a user.
        allowed_mentions: { parse: [] },
      }
    case 'teams':
      return teamsCard(
        [
          { type: 'TextBlock', text: `New comment on ${title}`, weight: 'Bolder', wrap: true },
          { type: 'TextBlock', text: `${author}:`, isSubtle: true, wrap: true },
        ],
        text,
        notice.link,
      )
  }
}

/** A view's summary for a chat integration: the author's nudge ("Dana at Acme read 9 of 12 slides in 4 min"). */
export function viewPayload(format: ChatFormat, notice: { folioTitle: string; text: string; link: string }): object {
  const title = cut(notice.folioTitle, 200)
  const text = cut(notice.text, 300)
  switch (format) {
    case 'slack':
      return { text: `${slackEscape(text)}: <${notice.link}|${slackEscape(title)}>` }
    case 'discord':
      return { content: cut(`${discordEscape(text)}: [${discordEscape(title)}](<${notice.link}>)`, 2_000), allowed_mentions: { parse: [] } }
    case 'teams':
      return teamsCard([{ type: 'TextBlock', text: title, weight: 'Bolder', wrap: true }], text, notice.link)
  }
}

/**
 * Teams: an Adaptive Card with its heading blocks, then the text as plain text (Adaptive Cards
 * render a subset of markdown, which a viewer's text could use), and a button to the folio.
 */
function teamsCard(heading: object[], text: string, link: string): object {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [...heading, { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text }] }],
          actions: [{ type: 'Action.OpenUrl', title: 'Open the folio', url: link }],
        },
      },
    ],
  }
}
