/** What a Server-Sent Events stream carries: a named event with its data, or a comment line (the server's keep-alive). */
export type StreamMessage = { type: 'event'; event: string; data: string } | { type: 'comment'; text: string }

/**
 * Reads a text/event-stream body (GET /api/files/{id}/events) message by message, as the
 * EventSource standard parses it: `event:` and `data:` lines up to a blank line make an event
 * (several data lines joined by newlines, 'message' when unnamed); a line starting with a colon
 * is a comment. Ends when the body ends; an aborted request throws its AbortError.
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamMessage> {
  const decoder = new TextDecoder()
  let buffer = ''
  let event = ''
  let data: string[] = []
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = buffer.search(/\r\n|\r|\n/)) !== -1) {
      // A \r at the very end may be half of a \r\n still on its way.
      if (buffer[end] === '\r' && end === buffer.length - 1) break
      const line = buffer.slice(0, end)
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1))
      if (line === '') {
        if (data.length > 0) yield { type: 'event', event: event || 'message', data: data.join('\n') }
        event = ''
        data = []
      } else if (line.startsWith(':')) {
        yield { type: 'comment', text: line.slice(1).trim() }
      } else {
        const colon = line.indexOf(':')
        const field = colon === -1 ? line : line.slice(0, colon)
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') event = value
        else if (field === 'data') data.push(value)
        // id and retry: this client reconnects on its own terms.
      }
    }
  }
}
