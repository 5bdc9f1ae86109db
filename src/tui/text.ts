import { table } from '../terminal/format.js'
import { averageTime, deviceSplit, oneLine, reactionsLabel, statusLabel } from './format.js'
import type { CommentsSnapshot, FolioRow, StatusSnapshot, TunnelSnapshot } from './snapshot.js'

/** Sentences shared by the live view and the text snapshot. */
export const unreachableLine = (server: string) => `server not reachable at ${server} — start it with folio serve`

export function tunnelLine(tunnel: TunnelSnapshot): string {
  if (!tunnel.available) return tunnel.message
  if (tunnel.state === 'connected') return `connected  ${tunnel.url ?? ''}`.trimEnd()
  return tunnel.state
}

/** `folio status` without a terminal: one snapshot as text (no Ink involved). */
export function formatSnapshot(snapshot: StatusSnapshot): string {
  const { server } = snapshot
  if (!server.reachable) return `${unreachableLine(server.url)}${server.error ? ` (${server.error})` : ''}`
  const out = [`Server  ${server.url} (reachable)`]
  if (snapshot.tunnel) {
    out.push(`Tunnel  ${tunnelLine(snapshot.tunnel)}`)
    if (snapshot.tunnel.available && snapshot.tunnel.lastError) out.push(`        last error: ${snapshot.tunnel.lastError}`)
  }
  out.push('')
  if (snapshot.foliosError) out.push(`Folios: ${snapshot.foliosError}`)
  else if (snapshot.folios.length === 0) out.push('No folios yet. Create one: folio create "My deck" --html deck.html')
  else
    out.push(
      table(
        ['ID', 'TITLE', 'STATUS', 'VERSION', 'VIEWS', 'AVG TIME', 'MOBILE/DESKTOP', 'REACTIONS'],
        snapshot.folios.map((f) => [
          f.id,
          oneLine(f.title, 40),
          statusLabel(f),
          f.latestVersionId,
          String(f.analytics.views),
          averageTime(f),
          deviceSplit(f),
          reactionsLabel(f.reactions),
        ]),
      ),
    )
  const perFolio = snapshot.folios.filter((f) => f.comments)
  if (perFolio.length > 0) out.push(...everyFoliosComments(perFolio))
  else {
    const comments = snapshot.comments
    const folio = comments && snapshot.folios.find((f) => f.id === comments.folioId)
    if (comments && folio) out.push(...commentLines(folio, comments))
  }
  return out.join('\n')
}

function commentLines(folio: FolioRow, comments: CommentsSnapshot): string[] {
  const out = ['', `Latest comments on “${oneLine(folio.title, 40)}”${comments.total > comments.latest.length ? ` (${comments.total} in all)` : ''}:`]
  if (comments.latest.length === 0) out.push('  no comments yet')
  else for (const c of comments.latest) out.push(`  ${oneLine(c.author, 24)}: ${oneLine(c.text, 90)}`)
  return out
}

/** A section per folio that has something to show; the folios without comments in one line. */
function everyFoliosComments(folios: FolioRow[]): string[] {
  const quiet = folios.filter((f) => f.comments!.state === 'ok' && f.comments!.total === 0)
  const out = folios.filter((f) => !quiet.includes(f)).flatMap((f) => commentLines(f, f.comments!))
  if (quiet.length === folios.length) out.push('', 'No comments yet.')
  else if (quiet.length > 0) out.push('', `No comments yet on ${quiet.length === 1 ? `“${oneLine(quiet[0]!.title, 40)}”` : `${quiet.length} other folios`}.`)
  return out
}
