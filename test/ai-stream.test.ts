import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { aiConversation, aiStream } from '../src/api/ai.js'
import { getFolio, updateFolio } from '../src/api/files.js'
import { createClient } from '../src/client/index.js'
import { readEventStream } from '../src/client/event-stream.js'
import {
  anthropicStreamFrames,
  anthropicText,
  answer,
  type FakeAi,
  ndjsonReply,
  ollamaStreamLines,
  ollamaText,
  ollamaToolCall,
  openaiStreamFrames,
  openaiStreamToolFrames,
  openaiText,
  page,
  sentText,
  sseReply,
  startFakeAi,
} from './helpers/fake-ai.js'
import { useServer } from './helpers/use-server.js'

let fake: FakeAi
beforeAll(async () => {
  fake = await startFakeAi()
})
afterAll(() => fake.close())
beforeEach(() => fake.reset())

/** Reads an ai-stream answer with folio's own SSE reader: every event's JSON, in order. */
async function streamEvents(url: string, id: string, body: object, options: { stopAfter?: (events: any[]) => boolean } = {}) {
  const controller = new AbortController()
  const client = createClient({ server: url })
  const res = await client.request(aiStream, { params: { id }, json: body as never, signal: controller.signal })
  if (res.status !== 200) return { status: res.status, body: await res.json(), events: [] as any[] }
  expect(res.headers.get('content-type')).toContain('text/event-stream')
  const events: any[] = []
  try {
    for await (const message of readEventStream(res.body!)) {
      if (message.type !== 'event') continue
      expect(message.event).toBe('message')
      events.push(JSON.parse(message.data))
      if (options.stopAfter?.(events)) {
        controller.abort()
        break
      }
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error
  }
  return { status: res.status, body: undefined, events }
}

const kinds = (events: any[]) =>
  events.map((e) => (e.type === 'status' ? `status:${e.stage}` : e.type)).filter((k, i, all) => k !== 'chunk' || all[i - 1] !== 'chunk')

describe('ai-stream, and each provider through its own wire protocol', () => {
  const server = useServer(() => ({
    config: {
      ai: {
        FOLIO_AI_PROVIDER: 'openai',
        FOLIO_AI_MODEL: 'local-model',
        OPENAI_BASE_URL: `${fake.url}/v1`,
        // A base URL without /v1, as the Anthropic SDK and Claude Code take it.
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_API_KEY: 'sk-ant-env-key',
        // No scheme: Ollama's own parsing (http, port as given).
        OLLAMA_HOST: fake.url.replace('http://', ''),
      },
    },
  }))

  it('OpenAI: status planning, status generating, chunks as they arrive, then done with the result', async () => {
    const id = await server.api.create('Stream', { 'index.html': page('Stream') })
    const text = answer('Made it blue.', { 'index.html': page('Stream', '<h1 style="color:blue">Stream</h1>') })
    fake.reply(openaiText('- colour the title blue in index.html'), sseReply(openaiStreamFrames(text, 30)))
    const { status, events } = await streamEvents(server.ts.url, id, { userPrompt: 'Make it blue' })
    expect(status).toBe(200)
    expect(kinds(events)).toEqual(['status:planning', 'status:generating', 'chunk', 'done'])
    expect(events[1].plan).toBe('- colour the title blue in index.html')
    expect(events.filter((e) => e.type === 'chunk').length).toBeGreaterThan(3)
    expect(
      events
        .filter((e) => e.type === 'chunk')
        .map((e) => e.text)
        .join(''),
    ).toBe(text)
    expect(events.at(-1)).toMatchObject({ type: 'done', success: true, explanation: 'Made it blue.', isProposal: true, changedFiles: ['index.html'] })
    // Two stages: a plan (not streamed), then the generation, streamed, which sees the plan.
    expect(fake.requests.map((r) => [r.url, r.body.stream ?? false])).toEqual([
      ['/v1/chat/completions', false],
      ['/v1/chat/completions', true],
    ])
    expect(sentText(fake.requests[1]!)).toContain('- colour the title blue in index.html')
  })

  it('Anthropic Messages: streamed events, x-api-key, /v1 added to ANTHROPIC_BASE_URL, the design system in the system prompt', async () => {
    const id = await server.api.create('Claude', { 'index.html': page('Claude') })
    await server.api.send(updateFolio, { params: { id }, body: { designPreferences: { theme: 'govuk' } } })
    const text = answer('Restyled.', { 'index.html': page('Claude', '<h1 class="govuk-heading-xl">Claude</h1>') })
    fake.reply(anthropicText('1. Use the GOV.UK heading class.'), sseReply(anthropicStreamFrames(text, 25)))
    const { events } = await streamEvents(server.ts.url, id, { userPrompt: 'Restyle', selectedModel: 'anthropic:claude-sonnet-4-5' })
    expect(kinds(events)).toEqual(['status:planning', 'status:generating', 'chunk', 'done'])
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      explanation: 'Restyled.',
      proposedFiles: { 'index.html': expect.stringContaining('govuk-heading-xl') },
    })
    const sent = fake.requests[1]!
    expect(sent.url).toBe('/v1/messages')
    expect(sent.headers['x-api-key']).toBe('sk-ant-env-key')
    expect(sent.headers['anthropic-version']).toBe('2023-06-01')
    expect(sent.body).toMatchObject({ model: 'claude-sonnet-4-5', stream: true })
    expect(sent.body.system[0].text).toContain('GOV.UK')
  })

  it('Ollama /api/chat: NDJSON stream, limits passed as options, no key', async () => {
    const id = await server.api.create('Llama', { 'index.html': page('Llama') })
    const text = answer('Added a footer.', { 'index.html': page('Llama', '<h1>Llama</h1><footer>bye</footer>') })
    fake.reply(ollamaText('- add a footer'), ndjsonReply(ollamaStreamLines(text, 20)))
    const { events } = await streamEvents(server.ts.url, id, { userPrompt: 'Add a footer', selectedModel: 'ollama:llama3.2' })
    expect(kinds(events)).toEqual(['status:planning', 'status:generating', 'chunk', 'done'])
    expect(events.at(-1)).toMatchObject({ type: 'done', explanation: 'Added a footer.' })
    const sent = fake.requests[1]!
    expect(sent.url).toBe('/api/chat')
    expect(sent.headers.authorization).toBeUndefined()
    expect(sent.body).toMatchObject({ model: 'llama3.2', stream: true, options: { num_predict: 16000 } })
  })

  it('OpenAI streamed tool calls: the tool runs between two streamed steps, reported as status and in done', async () => {
    const id = await server.api.create('Streamed tools', { 'index.html': page('Streamed tools'), 'facts.txt': 'Otters sleep holding hands.\n' })
    const text = answer('Added the fact.', { 'index.html': page('Streamed tools', '<p>Otters sleep holding hands.</p>') })
    fake.reply(openaiText('- read facts.txt, add it'), sseReply(openaiStreamToolFrames('read_file', { path: 'facts.txt' })), sseReply(openaiStreamFrames(text)))
    const { events } = await streamEvents(server.ts.url, id, { userPrompt: 'Add the fact from facts.txt' })
    expect(kinds(events)).toEqual(['status:planning', 'status:generating', 'status:generating', 'chunk', 'done'])
    expect(events[2]).toMatchObject({ message: 'Calling read_file', toolCall: { id: 'call_9', name: 'read_file', arguments: { path: 'facts.txt' } } })
    expect(events.at(-1).toolCalls).toEqual([
      { id: 'call_9', name: 'read_file', arguments: { path: 'facts.txt' }, status: 'done', result: 'Otters sleep holding hands.\n' },
    ])
    expect(fake.requests[2]!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_9', content: 'Otters sleep holding hands.\n' })
  })

  it('Ollama tool calls arrive whole (arguments as an object) and are answered the same way', async () => {
    const id = await server.api.create('Llama tools', { 'index.html': page('Llama tools') })
    fake.reply(ollamaToolCall('list_files', {}), ollamaText(answer('Listed.', { 'index.html': page('Llama tools', '<p>1 file</p>') })))
    const reply = await server.api.send(aiConversation, { params: { id }, body: { userPrompt: 'How many files?', selectedModel: 'ollama:llama3.2' } })
    expect(reply.status).toBe(200)
    expect(reply.body.toolCalls).toMatchObject([{ name: 'list_files', arguments: {}, status: 'done' }])
    expect(fake.requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('"path":"index.html"') })
  })

  it('Anthropic and Ollama answer POST /ai too (not streamed), with executeImmediately', async () => {
    const id = await server.api.create('Both', { 'index.html': page('Both') })
    fake.reply(
      anthropicText(answer('From Claude.', { 'index.html': page('Claude was here') })),
      ollamaText(answer('From Llama.', { 'index.html': page('Llama was here') })),
    )
    const claude = await server.api.send(aiConversation, {
      params: { id },
      body: { userPrompt: 'Sign it', selectedModel: 'anthropic:claude-sonnet-4-5', executeImmediately: true },
    })
    const llama = await server.api.send(aiConversation, {
      params: { id },
      body: { userPrompt: 'Sign it', ollamaHost: fake.url, selectedModel: 'ollama:llama3.2', executeImmediately: true },
    })
    expect([claude.body.newVersionId, llama.body.newVersionId]).toEqual(['v2', 'v3'])
    expect(fake.requests.map((r) => [r.url, r.body.stream])).toEqual([
      ['/v1/messages', undefined],
      ['/api/chat', false],
    ])
  })

  it('reads each provider’s own error body: Anthropic’s error object, Ollama’s error string', async () => {
    const id = await server.api.create('Errors', { 'index.html': page('Errors') })
    fake.reply(
      (res) =>
        void res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } })),
      (res) => void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'model "nope" not found, try pulling it first' })),
    )
    const claude = await server.api.send(aiConversation, { params: { id }, body: { userPrompt: 'Go', selectedModel: 'anthropic:claude-sonnet-4-5' } })
    const llama = await server.api.send(aiConversation, { params: { id }, body: { userPrompt: 'Go', selectedModel: 'ollama:nope' } })
    expect([claude.status, claude.body]).toEqual([
      500,
      {
        error: 'AI failed to generate HTML content.',
        message: 'The AI provider (anthropic, model claude-sonnet-4-5) refused the credentials (401): invalid x-api-key',
      },
    ])
    expect([llama.status, llama.body]).toEqual([
      500,
      {
        error: 'AI failed to generate HTML content.',
        message: 'The AI provider (ollama, model nope) answered 404: model "nope" not found, try pulling it first',
      },
    ])
  })

  it('a provider stream cut halfway ends in an error event, and nothing is committed', async () => {
    const id = await server.api.create('Cut', { 'index.html': page('Cut') })
    const text = answer('Never finished.', { 'index.html': page('Cut', '<p>more</p>') })
    fake.reply(openaiText('- plan'), sseReply(openaiStreamFrames(text, 20), { cutAfter: 4, delayMs: 20 }))
    const { events } = await streamEvents(server.ts.url, id, { userPrompt: 'Go', executeImmediately: true })
    expect(kinds(events)).toEqual(['status:planning', 'status:generating', 'chunk', 'error'])
    expect(events.at(-1).message).toMatch(
      /^AI failed to generate HTML content\. The AI provider \(openai, model local-model\) broke off mid-answer: the connection was cut\.$/,
    )
    expect((await server.api.send(getFolio, { params: { id } })).body.versions).toHaveLength(1)
  })

  it('a provider error before the stream ends in an error event with its message', async () => {
    const id = await server.api.create('Refused', { 'index.html': page('Refused') })
    fake.reply(
      (res) => void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided' } })),
    )
    const { events } = await streamEvents(server.ts.url, id, { userPrompt: 'Go' })
    expect(events).toEqual([
      { type: 'status', stage: 'planning', message: 'Planning the change' },
      {
        type: 'error',
        message: 'AI failed to generate HTML content. The AI provider (openai, model local-model) refused the credentials (401): Incorrect API key provided',
      },
    ])
  })

  it('the client hanging up aborts the provider request, and commits nothing', async () => {
    const id = await server.api.create('Hang up', { 'index.html': page('Hang up') })
    const text = answer('Slow.', { 'index.html': page('Hang up', '<p>slow</p>') })
    fake.reply(openaiText('- plan'), sseReply(openaiStreamFrames(text, 5), { delayMs: 100 }))
    const closed = fake.nextEarlyClose()
    const { events } = await streamEvents(
      server.ts.url,
      id,
      { userPrompt: 'Go', executeImmediately: true },
      { stopAfter: (e) => e.filter((x) => x.type === 'chunk').length >= 2 },
    )
    expect(kinds(events)).toEqual(['status:planning', 'status:generating', 'chunk'])
    // The fake provider sees its connection close long before its reply would have ended.
    await closed
    expect(fake.closedEarly).toEqual(['/v1/chat/completions'])
    await new Promise((r) => setTimeout(r, 300))
    expect((await server.api.send(getFolio, { params: { id } })).body.versions).toHaveLength(1)
  })

  it('refuses before streaming, as JSON: blank prompt, unknown folio', async () => {
    const id = await server.api.create('Refuse', { 'index.html': page('Refuse') })
    expect(await streamEvents(server.ts.url, id, { userPrompt: ' ' }).then((r) => [r.status, r.body.error])).toEqual([400, 'A non-empty prompt is required.'])
    expect(await streamEvents(server.ts.url, 'zzzzzzzz', { userPrompt: 'x' }).then((r) => [r.status, r.body.error])).toEqual([404, 'Project not found'])
    expect(fake.requests).toEqual([])
  })
})
