import { useApp } from 'ink'
import { useCallback, useEffect, useRef, useState } from 'react'
import { describeError, type FolioRow, shareUrlFor, type StatusSnapshot } from './snapshot.js'
import { StatusApp } from './StatusApp.js'
import type { Busy, Message, TunnelAction } from './types.js'

export interface LiveStatusProps {
  /** Fetches a snapshot with the comments of `selectedId` (the first folio when undefined). Should not throw. */
  load: (selectedId: string | undefined) => Promise<StatusSnapshot>
  /** Starts or stops the tunnel; rejects with the reason when that fails. */
  toggleTunnel: (action: TunnelAction) => Promise<void>
  /** Opens a share page; resolves false when no browser could be started. */
  open: (url: string, folio: FolioRow) => Promise<boolean>
  /** Called once when the user quits (q, Esc, Ctrl+C), before the app unmounts. */
  onQuit?: () => void
  /** Between refreshes; default 2000. */
  intervalMs?: number
  /** After a selection change, the comments of the new folio are fetched this much later (default 200 ms). */
  selectDelayMs?: number
  width?: number
  height?: number
}

/**
 * The live loop: polls `load`, keeps the selection (by folio id, so it stays on its folio when
 * the order changes), runs the actions and renders StatusApp. Everything that talks to the
 * server comes in as a callback, so tests drive it with fakes.
 */
export function LiveStatus(props: LiveStatusProps) {
  const { exit } = useApp()
  const [snapshot, setSnapshot] = useState<StatusSnapshot | null>(null)
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState<Busy>(null)
  const [message, setMessage] = useState<Message | null>(null)

  const propsRef = useRef(props)
  propsRef.current = props
  const state = useRef({ snapshot, selectedId, busy })
  state.current = { snapshot, selectedId, busy }
  const loop = useRef({ alive: true, loading: false, again: false, timer: undefined as NodeJS.Timeout | undefined, selectTimer: undefined as NodeJS.Timeout | undefined })

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
      setSnapshot(next)
      // Keep the selection while the server is away; move it when its folio is gone.
      const keep = !next.server.reachable || next.folios.some((f) => f.id === state.current.selectedId)
      if (!keep) {
        state.current.selectedId = next.folios[0]?.id
        setSelectedId(next.folios[0]?.id)
      }
    } catch (error) {
      if (l.alive) setMessage({ tone: 'error', text: `refresh failed: ${describeError(error)}` })
    } finally {
      l.loading = false
      if (l.alive) {
        if (l.again) {
          l.again = false
          void refresh()
        } else {
          l.timer = setTimeout(() => void refresh(), propsRef.current.intervalMs ?? 2000)
        }
      }
    }
  }, [])

  useEffect(() => {
    const l = loop.current
    l.alive = true
    void refresh()
    return () => {
      l.alive = false
      clearTimeout(l.timer)
      clearTimeout(l.selectTimer)
    }
  }, [refresh])

  const folios = snapshot?.folios ?? []
  const selected = Math.max(0, folios.findIndex((f) => f.id === selectedId))

  const move = (delta: number) => {
    const list = state.current.snapshot?.folios ?? []
    if (list.length === 0) return
    const current = Math.max(0, list.findIndex((f) => f.id === state.current.selectedId))
    const next = list[Math.min(list.length - 1, Math.max(0, current + delta))]!
    if (next.id === state.current.selectedId) return
    state.current.selectedId = next.id
    setSelectedId(next.id)
    // Fetch the newly selected folio's comments once the cursor rests.
    const l = loop.current
    clearTimeout(l.selectTimer)
    l.selectTimer = setTimeout(() => void refresh(), propsRef.current.selectDelayMs ?? 200)
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

  const open = async (folioId: string) => {
    const current = state.current.snapshot
    const folio = current?.folios.find((f) => f.id === folioId)
    if (!current || !folio) return
    const url = shareUrlFor(current.server.url, folio)
    const opened = await propsRef.current.open(url, folio).catch(() => false)
    if (loop.current.alive) setMessage(opened ? { tone: 'info', text: `opened ${url}` } : { tone: 'error', text: `no browser could be started: open ${url}` })
  }

  const quit = () => {
    const l = loop.current
    l.alive = false
    clearTimeout(l.timer)
    clearTimeout(l.selectTimer)
    propsRef.current.onQuit?.()
    exit()
  }

  return (
    <StatusApp
      snapshot={snapshot}
      selected={selected}
      busy={busy}
      message={message}
      width={props.width}
      height={props.height}
      intervalSeconds={Math.round((props.intervalMs ?? 2000) / 100) / 10}
      onMove={move}
      onToggleTunnel={() => void toggleTunnel()}
      onOpen={(id) => void open(id)}
      onRefresh={() => {
        setMessage(null)
        void refresh()
      }}
      onQuit={quit}
    />
  )
}
