import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A local server speaking the AI providers' real wire protocols (OpenAI Chat Completions,
 * Anthropic Messages, Ollama /api/chat), replaying scripted replies in order and recording what
 * folio sent. `closedEarly` lists requests whose client hung up before the reply ended.
 */
export interface Recorded {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: any
}
export type Reply = (res: http.ServerResponse, rec: Recorded) => void | Promise<void>

export async function startFakeAi() {
  const requests: Recorded[] = []
  const replies: Reply[] = []
  const closedEarly: string[] = []
  const closeWaiters: Array<() => void> = []
  const server = http.createServer(async (req, res) => {
    let raw = ''
    for await (const chunk of req) raw += chunk
    const rec: Recorded = { method: req.method!, url: req.url!, headers: req.headers, body: raw ? JSON.parse(raw) : undefined }
    requests.push(rec)
    res.on('close', () => {
      if (!res.writableFinished) {
        closedEarly.push(rec.url)
        for (const w of closeWaiters.splice(0)) w()
      }
    })
    const reply = replies.shift()
    if (!reply) return void res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'no scripted reply' } }))
    await reply(res, rec)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    requests,
    closedEarly,
    reply: (...r: Reply[]) => void replies.push(...r),
    /** Replies still unused (a test that scripted more than folio asked for left some). */
    pending: () => replies.length,
    reset: () => {
      requests.splice(0)
      replies.splice(0)
      closedEarly.splice(0)
    },
    /** Resolves when a client hangs up on a reply in progress. */
    nextEarlyClose: () => new Promise<void>((r) => closeWaiters.push(r)),
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((r) => server.close(() => r()))
    },
  }
}
export type FakeAi = Awaited<ReturnType<typeof startFakeAi>>

export const jsonReply =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  }

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** SSE frames: OpenAI's are objects or '[DONE]'; Anthropic's are {event, data}. cutAfter destroys the socket before that frame. */
export const sseReply =
  (frames: unknown[], o: { cutAfter?: number; delayMs?: number; holdMs?: number } = {}): Reply =>
  async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (const [i, f] of frames.entries()) {
      if (i === o.cutAfter) return void res.socket?.destroy()
      const ev = f as { event?: string; data?: unknown }
      res.write(
        ev.event
          ? `event: ${ev.event}\ndata: ${JSON.stringify({ type: ev.event, ...(ev.data as object) })}\n\n`
          : `data: ${typeof f === 'string' ? f : JSON.stringify(f)}\n\n`,
      )
      if (o.delayMs) await wait(o.delayMs)
      if (res.destroyed) return
    }
    if (o.holdMs) await wait(o.holdMs)
    res.end()
  }

export const ndjsonReply =
  (lines: unknown[], o: { cutAfter?: number } = {}): Reply =>
  (res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' })
    for (const [i, line] of lines.entries()) {
      if (i === o.cutAfter) return void res.socket?.destroy()
      res.write(`${JSON.stringify(line)}\n`)
    }
    res.end()
  }

// ---- OpenAI Chat Completions

export const openaiText = (content: string, finish = 'stop') =>
  jsonReply(200, {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1700000000,
    model: 'fake-model',
    choices: [{ index: 0, finish_reason: finish, message: { role: 'assistant', content } }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  })

export const openaiToolCall = (name: string, args: object, id = 'call_1') =>
  jsonReply(200, {
    id: 'chatcmpl-2',
    object: 'chat.completion',
    created: 1700000000,
    model: 'fake-model',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
      },
    ],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  })

const chunk = (delta: object, finish: string | null = null) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'fake-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
})

/** The answer streamed in pieces of `size` characters. */
export function openaiStreamFrames(content: string, size = 40): unknown[] {
  const frames: unknown[] = [chunk({ role: 'assistant', content: '' })]
  for (let i = 0; i < content.length; i += size) frames.push(chunk({ content: content.slice(i, i + size) }))
  frames.push(
    chunk({}, 'stop'),
    {
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'fake-model',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    },
    '[DONE]',
  )
  return frames
}

export function openaiStreamToolFrames(name: string, args: object, id = 'call_9'): unknown[] {
  const json = JSON.stringify(args)
  return [
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(0, 5) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(5) } }] }),
    chunk({}, 'tool_calls'),
    '[DONE]',
  ]
}

// ---- Anthropic Messages

export const anthropicText = (text: string) =>
  jsonReply(200, {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 6 },
  })

export function anthropicStreamFrames(text: string, size = 40): unknown[] {
  const frames: unknown[] = [
    {
      event: 'message_start',
      data: {
        message: {
          id: 'msg_s',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 20, output_tokens: 1 },
        },
      },
    },
    { event: 'content_block_start', data: { index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'ping', data: {} },
  ]
  for (let i = 0; i < text.length; i += size)
    frames.push({ event: 'content_block_delta', data: { index: 0, delta: { type: 'text_delta', text: text.slice(i, i + size) } } })
  frames.push(
    { event: 'content_block_stop', data: { index: 0 } },
    { event: 'message_delta', data: { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 30 } } },
    { event: 'message_stop', data: {} },
  )
  return frames
}

// ---- Ollama /api/chat

const ollamaLine = (content: string, done: boolean, extra: object = {}) => ({
  model: 'llama3.2',
  created_at: '2025-01-01T00:00:00Z',
  message: { role: 'assistant', content, ...extra },
  done,
  ...(done
    ? { done_reason: 'stop', prompt_eval_count: 14, eval_count: 5, total_duration: 1, load_duration: 1, prompt_eval_duration: 1, eval_duration: 1 }
    : {}),
})

export const ollamaText = (content: string) => jsonReply(200, ollamaLine(content, true))
export const ollamaToolCall = (name: string, args: object) => jsonReply(200, ollamaLine('', true, { tool_calls: [{ function: { name, arguments: args } }] }))

export function ollamaStreamLines(content: string, size = 40): unknown[] {
  const lines: unknown[] = []
  for (let i = 0; i < content.length; i += size) lines.push(ollamaLine(content.slice(i, i + size), false))
  lines.push(ollamaLine('', true))
  return lines
}

// ---- What a model answers in folio's format

export const page = (title: string, body = `<h1>${title}</h1>`) =>
  `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${title}</title></head>\n<body>\n${body}\n</body>\n</html>`

/** An answer in the format the system prompt asks for. */
export const answer = (explanation: string, files: Record<string, string>, meta?: object) =>
  [
    explanation,
    meta ? `<folio-meta>${JSON.stringify(meta)}</folio-meta>` : '',
    ...Object.entries(files).map(([path, content]) => `<folio-file path="${path}">\n${content}\n</folio-file>`),
  ]
    .filter(Boolean)
    .join('\n\n')

/** The text of the messages a provider received (system prompt included), whatever its protocol. */
export function sentText(rec: Recorded): string {
  const b = rec.body
  const parts: string[] = []
  const add = (c: unknown) => {
    if (typeof c === 'string') parts.push(c)
    else if (Array.isArray(c)) for (const x of c) add((x as { text?: string; content?: unknown }).text ?? (x as { content?: unknown }).content)
  }
  if (b.system) add(b.system)
  for (const m of b.messages ?? []) add(m.content)
  return parts.join('\n')
}
