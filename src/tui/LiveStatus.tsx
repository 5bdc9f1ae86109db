import { useApp } from 'ink'
import { useCallback, useEffect, useRef, useState } from 'react'
import { ACTIVITY_KEPT, type ActivityEntry, activityBetween } from './activity.js'
import type { Focus } from './keys.js'
import type { ChangeListener, FolioWatch } from './live-events.js'
import { commentsFor, describeError, type FolioRow, shareUrlFor, type StatusSnapshot } from './snapshot.js'
import { StatusApp } from './StatusApp.js'
import type { Busy, Message, TunnelAction } from './types.js'

export interface LiveStatusProps {
  /** Fetches a snapshot (its comments for `selectedId`, or every folio's). Should not throw. */
  load: (selectedId: string | undefined) => Promise<StatusSnapshot>
  /** Starts or stops the tunnel; rejects with the reason when that fails. */
  toggleTunnel: (action: TunnelAction) => Promise<void>
  /** Opens a share page; resolves false when no browser could be started. */
  open: (url: string, folio: FolioRow) => Promise<boolean>
  /** Resolves or reopens a comment; rejects with the reason when the server refuses. */
  resolveComment?: (folioId: string, commentId: string, resolved: boolean) => Promise<void>
  /** Opens the live event streams; each change it reports reloads the snapshot at once. */
  watch?: (onChange: ChangeListener) => FolioWatch
  /** Which folios a stream would admit (default: all). */
  watchable?: (folio: FolioRow) => boolean
  /** Called once when the user quits (q, Esc, Ctrl+C), before the app unmounts. */
  onQuit?: () => void
  /** The first snapshot, when it was loaded before the screen opened. */
  initial?: StatusSnapshot
  /** Between polls (what has no live event: time within a view, folios not watched); default 10 000. */
  intervalMs?: number
  /** After a live event, the reload waits this long for more of the same burst (default 100 ms). */
  settleMs?: number
  width?: number
  height?: number
}

/** Folios with a live stream: the selected one and the most recently updated, up to this many. */
export const WATCHED = 5

/**
 * The live loop: loads snapshots (at once on a live event, else every intervalMs), keeps the
 * selections (by id, so they stay on their folio and comment when the order changes), collects
 * the recent activity, runs the actions and renders StatusApp. Everything that talks to the
 * server comes in as a callback, so tests drive it with fakes.
 */
export function LiveStatus(props: LiveStatusProps) {
  const { exit } = useApp()
  const [snapshot, setSnapshot] = useState<StatusSnapshot | null>(props.initial ?? null)
  const [selectedId, setSelectedId] = useState<string | undefined>(props.initial?.folios[0]?.id)
  const [focus, setFocus] = useState<Focus>('folios')
  const [commentId, setCommentId] = useState<string | undefined>(undefined)
  const [activity, setActivity] = useState<ActivityEntry[]>([])
  const [live, setLive] = useState('')
  const [busy, setBusy] = useState<Busy>(null)
  const [message, setMessage] = useState<Message | null>(null)

  const propsRef = useRef(props)
  propsRef.current = props
  // What the keys act on, kept in step at once (several keys may come before the next render).
  const state = useRef({ snapshot, selectedId, busy, commentId, focus, listed: props.initial ?? null })
  Object.assign(state.current, { snapshot, selectedId, busy, commentId, focus })
  const loop = useRef({
    alive: true,
    loading: false,
    again: false,
    timer: undefined as NodeJS.Timeout | undefined,
    settle: undefined as NodeJS.Timeout | undefined,
    watch: null as FolioWatch | null,
  })

  /** Live streams for the selected folio and the newest others. */
  const rewatch = useCallback(() => {
    const { snapshot: current, selectedId: id } = state.current
    const watch = loop.current.watch
    if (!watch || !current?.server.reachable) return
    const watchable = propsRef.current.watchable ?? (() => true)
    const candidates = [current.folios.find((f) => f.id === id), ...current.folios].filter((f): f is FolioRow => Boolean(f) && watchable(f!))
    const ids = [...new Set(candidates.map((f) => f.id))].slice(0, WATCHED)
    watch.watch(ids)
    const every = `every ${Math.round((propsRef.current.intervalMs ?? 10_000) / 1000)} s`
    setLive(ids.length === 0 ? `(updated ${every})` : `live: ${ids.length === 1 ? '1 folio' : `${ids.length} folios`}, the rest ${every}`)
  }, [])

  const refresh = useCallback(async (): Promise<void> => {
    const l = loop.current
    if (!l.alive) return
    if (l.loading) {
      l.again = true
      return
    }
    l.loading = true
    clearTimeout(l.timer)
    try {
      const next = await propsRef.current.load(state.current.selectedId)
      if (!l.alive) return
      // News is what changed since the last full list (not since an outage).
      const news = activityBetween(state.current.listed, next)
      if (next.server.reachable && !next.foliosError) state.current.listed = next
      if (news.length > 0) setActivity((list) => [...list, ...news].slice(-ACTIVITY_KEPT))
      state.current.snapshot = next
      setSnapshot(next)
      // Keep the selection while the server is away; move it when its folio is gone.
      const keep = !next.server.reachable || next.folios.some((f) => f.id === state.current.selectedId)
      if (!keep) {
        state.current.selectedId = next.folios[0]?.id
        setSelectedId(next.folios[0]?.id)
      }
      rewatch()
    } catch (error) {
      if (l.alive) setMessage({ tone: 'error', text: `refresh failed: ${describeError(error)}` })
    } finally {
      l.loading = false
      if (l.alive) {
        if (l.again) {
          l.again = false
          void refresh()
        } else {
          l.timer = setTimeout(() => void refresh(), propsRef.current.intervalMs ?? 10_000)
        }
      }
    }
  }, [rewatch])

  useEffect(() => {
    const l = loop.current
    l.alive = true
    // A burst of events (a version and its re-anchored comments, several streams opening) is one reload.
    l.watch =
      propsRef.current.watch?.(() => {
        clearTimeout(l.settle)
        l.settle = setTimeout(() => void refresh(), propsRef.current.settleMs ?? 100)
      }) ?? null
    if (state.current.snapshot) {
      // Loaded just before the screen opened: the next look is the poll's (or a live event's).
      rewatch()
      l.timer = setTimeout(() => void refresh(), propsRef.current.intervalMs ?? 10_000)
    } else void refresh()
    return () => {
      l.alive = false
      clearTimeout(l.timer)
      clearTimeout(l.settle)
      l.watch?.close()
    }
  }, [refresh, rewatch])

  const folios = snapshot?.folios ?? []
  const selected = Math.max(
    0,
    folios.findIndex((f) => f.id === selectedId),
  )
  const selectedFolio = folios[selected]
  const comments = selectedFolio ? commentsFor(snapshot!, selectedFolio) : null
  const commentIndex = Math.max(0, comments?.latest.findIndex((c) => c.id === commentId) ?? 0)

  const move = (delta: number) => {
    const list = state.current.snapshot?.folios ?? []
    if (list.length === 0) return
    const current = Math.max(
      0,
      list.findIndex((f) => f.id === state.current.selectedId),
    )
    const next = list[Math.min(list.length - 1, Math.max(0, current + delta))]!
    if (next.id === state.current.selectedId) return
    state.current.selectedId = next.id
    state.current.commentId = undefined
    setSelectedId(next.id)
    setCommentId(undefined)
    rewatch()
  }

  /** The selected folio, its comments and the selected comment (the newest until one is chosen). */
  const current = () => {
    const snap = state.current.snapshot
    const folio = snap?.folios.find((f) => f.id === state.current.selectedId) ?? snap?.folios[0]
    const list = snap && folio ? (commentsFor(snap, folio)?.latest ?? []) : []
    return { folio, list, comment: list.find((c) => c.id === state.current.commentId) ?? list[0] }
  }

  const moveComment = (delta: number) => {
    const { list, comment } = current()
    if (!comment) return
    const next = list[Math.min(list.length - 1, Math.max(0, list.indexOf(comment) + delta))]!
    state.current.commentId = next.id
    setCommentId(next.id)
  }

  const toggleResolved = async () => {
    const resolve = propsRef.current.resolveComment
    const { folio, comment } = current()
    if (!resolve || !folio || !comment) return
    const resolved = !comment.resolved
    try {
      await resolve(folio.id, comment.id, resolved)
      if (loop.current.alive) setMessage({ tone: 'info', text: resolved ? 'comment resolved' : 'comment reopened' })
    } catch (error) {
      if (loop.current.alive) setMessage({ tone: 'error', text: `could not ${resolved ? 'resolve' : 'reopen'} the comment: ${describeError(error)}` })
    }
    void refresh()
  }

  const toggleTunnel = async () => {
    const { snapshot: current, busy: running } = state.current
    if (running) return setMessage({ tone: 'info', text: `wait: the tunnel is ${running === 'start' ? 'starting' : 'stopping'}…` })
    if (!current?.server.reachable) return setMessage({ tone: 'error', text: 'the server is not reachable' })
    const tunnel = current.tunnel
    if (!tunnel?.available) return setMessage({ tone: 'error', text: tunnel?.message ?? 'no tunnel' })
    const action: TunnelAction = tunnel.state === 'stopped' ? 'start' : 'stop'
    state.current.busy = action
    setBusy(action)
    setMessage(null)
    try {
      await propsRef.current.toggleTunnel(action)
      if (loop.current.alive) setMessage({ tone: 'info', text: action === 'start' ? 'tunnel started' : 'tunnel stopped' })
    } catch (error) {
      if (loop.current.alive) setMessage({ tone: 'error', text: `tunnel ${action} failed: ${describeError(error)}` })
    } finally {
      state.current.busy = null
      if (loop.current.alive) {
        setBusy(null)
        void refresh()
      }
    }
  }

  const open = async () => {
    const snap = state.current.snapshot
    const { folio, comment } = current()
    if (!snap || !folio) return
    const at = state.current.focus === 'comments' ? comment : undefined
    const url = shareUrlFor(snap.server.url, folio) + (at ? `#comment=${encodeURIComponent(at.id)}` : '')
    const opened = await propsRef.current.open(url, folio).catch(() => false)
    if (loop.current.alive) setMessage(opened ? { tone: 'info', text: `opened ${url}` } : { tone: 'error', text: `no browser could be started: open ${url}` })
  }

  const quit = () => {
    const l = loop.current
    l.alive = false
    clearTimeout(l.timer)
    clearTimeout(l.settle)
    l.watch?.close()
    propsRef.current.onQuit?.()
    exit()
  }

  return (
    <StatusApp
      snapshot={snapshot}
      selected={selected}
      busy={busy}
      message={message}
      focus={focus}
      commentIndex={commentIndex}
      activity={activity}
      live={live}
      width={props.width}
      height={props.height}
      intervalSeconds={Math.round((props.intervalMs ?? 10_000) / 100) / 10}
      onMove={move}
      onMoveComment={moveComment}
      onFocus={(next) => {
        state.current.focus = next
        setFocus(next)
        setMessage(null)
      }}
      onToggleResolved={() => void toggleResolved()}
      onToggleTunnel={() => void toggleTunnel()}
      onOpen={() => void open()}
      onRefresh={() => {
        setMessage(null)
        void refresh()
      }}
      onQuit={quit}
    />
  )
}
