import { render } from 'ink'
import { createElement } from 'react'
import { resolveComment } from '../api/engagement.js'
import { controlTunnel } from '../api/tunnel.js'
import type { FolioClient } from '../client/index.js'
import { openUrl } from '../terminal/open-url.js'
import { LiveStatus } from './LiveStatus.js'
import { FullScreenStream } from './screen.js'
import { watchFolioEvents } from './live-events.js'
import { LIVE_COMMENTS, loadSnapshot, type StatusSnapshot } from './snapshot.js'

export interface RunStatusOptions {
  client: FolioClient
  /** The server URL as shown to people. */
  server: string
  /** Between polls for what has no live event (time within a view). */
  intervalMs?: number
  /** Whether the client sends a key (a 401 then means it was refused). */
  keySent?: boolean
  /** The first snapshot, loaded before the screen opens. */
  initial?: StatusSnapshot
  stdout?: NodeJS.WriteStream
  stdin?: NodeJS.ReadStream
  /** A line for the person after the screen closes (the CLI's logger). */
  note?: (message: string) => void
}

const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H'
const LEAVE_ALT_SCREEN = '\x1b[?1049l'

/**
 * The live `folio status`: draws on the terminal's alternate screen (so quitting gives the shell
 * back as it was) until q, Esc, Ctrl+C or a SIGINT/SIGTERM/SIGHUP. Resolves when the app is gone
 * and the terminal restored.
 */
export async function runStatus(options: RunStatusOptions): Promise<void> {
  const stdout = options.stdout ?? process.stdout
  const stdin = options.stdin ?? process.stdin
  let left = false
  const leave = () => {
    if (left) return
    left = true
    screen.close()
    stdout.write(LEAVE_ALT_SCREEN)
  }
  // The client cannot cancel a call: a tunnel request still running at quit keeps the process
  // alive until the server answers, so say so instead of hanging silently.
  let tunnelRequest: Promise<unknown> | null = null
  stdout.write(ENTER_ALT_SCREEN)
  const screen = new FullScreenStream(stdout)
  screen.open()
  process.once('exit', leave)

  const app = render(
    createElement(LiveStatus, {
      intervalMs: options.intervalMs,
      initial: options.initial,
      // Every folio's latest comments come with the list (no request per folio): moving the
      // selection shows them at once, and new ones become activity wherever they land.
      load: (selectedId) =>
        loadSnapshot(options.client, { server: options.server, selectedId, commentsFor: 'every', commentLimit: LIVE_COMMENTS, keySent: options.keySent }),
      watch: (onChange) => watchFolioEvents(options.client, onChange),
      // The share page's stream admits drafts and private folios to the key only.
      watchable: (folio) => Boolean(options.keySent) || (folio.status === 'published' && !folio.isPrivate),
      resolveComment: async (id, commentId, resolved) => {
        await options.client.call(resolveComment, { params: { id }, body: { commentId, resolved } })
      },
      toggleTunnel: async (action) => {
        // Starting waits for the tunnel server (the server gives up after its own timeout).
        const request = options.client.call(controlTunnel, { body: { action } }, action === 'start' ? 60_000 : 15_000)
        tunnelRequest = request
        try {
          await request
        } finally {
          if (tunnelRequest === request) tunnelRequest = null
        }
      },
      open: (url) => openUrl(url),
    }),
    // Ctrl+C arrives as a key (raw mode) and quits through the same path as q. debug: every
    // frame comes whole to the screen stream, which paints it at fixed rows (screen.ts).
    { stdout: screen as unknown as NodeJS.WriteStream, stdin, exitOnCtrlC: false, debug: true, patchConsole: false },
  )
  // A signal ends the app the same way: unmount, restore the screen, exit code 0.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
  const onSignal = () => app.unmount()
  for (const signal of signals) process.on(signal, onSignal)
  try {
    await app.waitUntilExit()
  } finally {
    for (const signal of signals) process.off(signal, onSignal)
    app.cleanup()
    leave()
    process.off('exit', leave)
  }
  if (tunnelRequest) options.note?.('Waiting for the tunnel request to finish (Ctrl+C stops waiting)…')
}
