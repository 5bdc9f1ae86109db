import type { Command } from 'commander'
import { ERRORS } from '../../api/errors.js'
import { createLink, listLinks, revokeLink } from '../../api/links.js'
import type { ResponseOf } from '../../api/contract.js'
import { ApiClientError } from '../../client/index.js'
import { withContext } from '../context.js'
import { CliError, EXIT, UsageError } from '../errors.js'

const ACTIONS = ['list', 'add', 'revoke'] as const
type Action = (typeof ACTIONS)[number]
const isAction = (word: string | undefined): word is Action => (ACTIONS as readonly string[]).includes(word ?? '')
type Link = ResponseOf<typeof listLinks>['links'][number]

export interface LinksOptions {
  expires?: string
  maxViews?: string
}

/** "7d", "12h", "30m" from now, or a date-time as given; undefined for anything else. */
export function expiryFrom(text: string, now = Date.now()): string | undefined {
  const span = /^(\d+)\s*(m|h|d|w)$/i.exec(text.trim())
  if (span) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[span[2]!.toLowerCase() as 'm']
    return new Date(now + Number(span[1]) * unit).toISOString()
  }
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : new Date(at).toISOString()
}

const line = (l: Link) =>
  `${l.name.padEnd(24)} ${l.status.padEnd(8)} ${String(l.views).padStart(5)} views ${String(l.totalTimeSeconds).padStart(6)} s   ${l.status === 'active' ? l.url : l.id}`

/** folio links [id] [action] [nameOrLinkId]: as folio comments, a first word that is an action is the action. */
export default (first: string | undefined, second: string | undefined, third: string | undefined, options: LinksOptions, command: Command) =>
  withContext(command, async (ctx) => {
    const [given, named, argument] = isAction(first) && third === undefined ? [undefined, first, second] : [first, second, third]
    const action = named ?? 'list'
    if (!isAction(action)) throw new UsageError(`${action} is not something folio links does: ${ACTIONS.join(', ')} (folio links --help).`)
    const id = await ctx.folioId(given)
    if (action !== 'add' && (options.expires || options.maxViews))
      throw new UsageError('--expires and --max-views go with add: folio links <id> add "Dana at Acme" --expires 7d.')
    if (action === 'list') {
      if (argument) throw new UsageError(`folio links ${id} lists every link; to make one: folio links ${id} add "${argument}".`)
      const { links } = await ctx.client.call(listLinks, { params: { id } })
      return ctx.print(links, () => (links.length ? links.map(line).join('\n') : `No recipient links yet: folio links ${id} add "Dana at Acme" makes one.`))
    }
    if (!argument) {
      throw new UsageError(
        action === 'add'
          ? `Who is the link for? folio links ${id} add "Dana at Acme"`
          : `Which link? folio links ${id} revoke <linkId> (folio links ${id} lists them).`,
      )
    }
    if (action === 'add') {
      const expiresAt = options.expires === undefined ? undefined : expiryFrom(options.expires)
      if (options.expires !== undefined && !expiresAt)
        throw new UsageError(`--expires ${options.expires}: give a date-time (2026-12-31T18:00Z) or a span (7d, 12h, 30m).`)
      const maxViews = options.maxViews === undefined ? undefined : Number(options.maxViews)
      if (maxViews !== undefined && !(Number.isInteger(maxViews) && maxViews >= 1))
        throw new UsageError(`--max-views ${options.maxViews}: a whole number of views, 1 or more.`)
      const { link } = await ctx.client.call(createLink, { params: { id }, body: { name: argument, expiresAt, maxViews } })
      return ctx.print(link, () => `Send ${link.name} this link:\n${link.url}`)
    }
    try {
      const { link } = await ctx.client.call(revokeLink, { params: { id, linkId: argument } })
      ctx.print(link, () => `Revoked the link for ${link.name}: it now shows that it expired. Its figures stay (folio links ${id}).`)
    } catch (error) {
      if (error instanceof ApiClientError && error.error === ERRORS.linkNotFound.error) {
        throw new CliError(`No link ${argument} on folio ${id}; folio links ${id} lists them.`, EXIT.failed, ERRORS.linkNotFound.error)
      }
      throw error
    }
  })
