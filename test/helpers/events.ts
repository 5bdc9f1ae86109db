import { folioEvents } from '../../src/api/sharing.js'
import type { TestApi } from './api.js'

export interface ServerSentEvent {
  event: string
  data: any
}

/**
 * A share page's live stream read as the page reads it (fetch + a stream reader): the events so
 * far, waiting for one, and whether the server closed the stream.
 */
export async function openEvents(api: TestApi, id: string, headers?: Record<string, string>) {
  const res = await api.request(folioEvents, { params: { id }, headers })
  if (res.status !== 200) throw new Error(`events: ${res.status} ${await res.text()}`)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const events: ServerSentEvent[] = []
  let buffer = ''
  let closed = false
  const waiters = new Set<() => void>()
  const wake = () => {
    for (const w of waiters) w()
  }
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event = /^event: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (event) events.push({ event, data: data ? JSON.parse(data) : undefined })
        }
        wake()
      }
    } catch {
      // cancelled by the test
    }
    closed = true
    wake()
  })()

  const until = async <T>(check: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = check()
      if (found !== undefined) return found
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; events so far: ${JSON.stringify(events)}`)
      await new Promise<void>((resolve) => {
        const done = () => {
          waiters.delete(done)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(done, 100)
        waiters.add(done)
      })
    }
  }

  return {
    events,
    get closed() {
      return closed
    },
    /** The first event of this name (after `from` events) that `match` accepts. */
    next(name: string, match: (data: any) => boolean = () => true, from = 0): Promise<ServerSentEvent> {
      return until(() => events.slice(from).find((e) => e.event === name && match(e.data)), `event ${name}`)
    },
    ended(): Promise<true> {
      return until(() => (closed ? true : undefined), 'the stream to close')
    },
    async cancel(): Promise<void> {
      await reader.cancel().catch(() => {})
    },
  }
}
