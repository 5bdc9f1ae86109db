import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { aiConversation } from '../src/api/ai.js'
import { getFolio, updateFolio } from '../src/api/files.js'
import { answer, type FakeAi, jsonReply, openaiText, openaiToolCall, page, startFakeAi } from './helpers/fake-ai.js'
import { LogLevels } from '../src/log/logger.js'
import { createClient } from '../src/client/index.js'
import { useServer } from './helpers/use-server.js'

let fake: FakeAi
beforeAll(async () => {
  fake = await startFakeAi()
})
afterAll(() => fake.close())
beforeEach(() => fake.reset())

/** Every file under a folder, as text: to prove a secret was never written. */
async function everything(dir: string): Promise<string> {
  const names = await readdir(dir, { recursive: true, withFileTypes: true })
  const texts = await Promise.all(names.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')))
  return texts.join('\n')
}

describe('POST /api/files/{id}/ai in OSS with an OpenAI-compatible server (OPENAI_BASE_URL)', () => {
  const server = useServer(() => ({
    logLevel: LogLevels.debug,
    config: { ai: { FOLIO_AI_PROVIDER: 'openai', FOLIO_AI_MODEL: 'local-model', OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-env-secret-1234' } },
  }))
  const ai = (id: string, body: object) => server.api.send(aiConversation, { params: { id }, body })

  it('proposes, keeps unchanged files, remembers the chat, commits exactly the proposal, clears the chat', async () => {
    const id = await server.api.create('Otters', { 'index.html': page('Otters'), 'about.html': page('About'), 'style.css': 'h1 { color: teal }\n' })
    await server.api.send(updateFolio, {
      params: { id },
      body: { designPreferences: { theme: 'ibm-carbon', customGuidelines: 'Use sentence case.' }, projectMode: 'document' },
    })
    const bigger = page('Otters', '<h1 style="font-size: 4rem">Otters</h1>')
    fake.reply(openaiText(answer('I made the title bigger.', { 'index.html': bigger })))

    const first = await ai(id, { userPrompt: 'Make the title bigger' })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      success: true,
      explanation: 'I made the title bigger.',
      isProposal: true,
      proposedFiles: { 'index.html': `${bigger}\n`, 'about.html': page('About'), 'style.css': 'h1 { color: teal }\n' },
      changedFiles: ['index.html'],
    })
    // Chat Completions, not the Responses API, with the environment's model and key.
    const sent = fake.requests[0]!
    expect(sent.url).toBe('/v1/chat/completions')
    expect(sent.body.model).toBe('local-model')
    expect(sent.headers.authorization).toBe('Bearer sk-env-secret-1234')
    expect(sent.body.max_tokens).toBeGreaterThan(1000)
    const system = sent.body.messages[0]
    expect(system.role).toBe('system')
    expect(system.content).toContain('IBM Carbon')
    expect(system.content).toContain('Use sentence case.')
    expect(system.content).toContain('Project mode: document')
    const user = sent.body.messages.at(-1).content as string
    expect(user).toContain('<folio-file path="about.html">')
    expect(user).toContain('h1 { color: teal }')
    expect(user).toMatch(/Request:\s+Make the title bigger$/)
    expect(sent.body.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual(['ask_user', 'list_files', 'read_file', 'web_fetch'])
    // Nothing committed yet.
    expect((await server.api.send(getFolio, { params: { id } })).body.versions).toHaveLength(1)

    // The next turn carries the conversation so far.
    fake.reply(openaiText(answer('Teal it is.', { 'style.css': 'h1 { color: teal; font-weight: 700 }' })))
    const second = await ai(id, { userPrompt: 'And bolder' })
    expect(second.body.changedFiles).toEqual(['style.css'])
    const history = fake.requests[1]!.body.messages.slice(1, 3)
    expect(history).toEqual([
      { role: 'user', content: 'Make the title bigger' },
      { role: 'assistant', content: 'I made the title bigger.' },
    ])

    const commit = await ai(id, {
      action: 'commit-proposal',
      proposedFiles: first.body.proposedFiles,
      proposedExplanation: 'Bigger title',
      simulatedAuthor: 'Otter Bot',
    })
    expect(commit.status).toBe(200)
    expect(commit.body.success).toBe(true)
    expect(commit.body.newVersionId).toBe('v2')
    const folio = (await server.api.send(getFolio, { params: { id } })).body
    expect(folio.versions.at(-1)).toMatchObject({ versionId: 'v2', commitMessage: 'Bigger title', author: 'Otter Bot', files: first.body.proposedFiles })

    const cleared = await ai(id, { action: 'clear-chat' })
    expect(cleared.status).toBe(200)
    expect(cleared.body.project.id).toBe(id)
    fake.reply(openaiText(answer('Fresh start.', { 'index.html': page('Otters!') })))
    await ai(id, { userPrompt: 'Add an exclamation mark' })
    expect(fake.requests.at(-1)!.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user'])
    // The key is never stored, and never logged (this server logs at debug).
    expect(await everything(server.ts.dataDir)).not.toContain('sk-env-secret')
    expect(server.ts.logs.join('\n')).not.toContain('sk-env-secret')
    server.ts.logs.splice(0)
  })

  it('commits at once with executeImmediately, authored by simulatedAuthor; the current screen and the element pointed at', async () => {
    const id = await server.api.create('Deck', { 'index.html': page('Deck'), 'two.html': page('Two', '<p id="x">Old</p>') })
    fake.reply(openaiText(answer('Reworded the paragraph.', { 'two.html': page('Two', '<p id="x">New</p>') })))
    const reply = await ai(id, {
      userPrompt: 'Reword this',
      pageContext: 'Current Screen',
      activeFilename: 'two.html',
      targetedElement: { selector: '#x', tagName: 'P', outerHTML: '<p id="x">Old</p>' },
      attachedFiles: [{ name: 'notes.txt', content: 'Say it with fewer words.' }],
      executeImmediately: true,
      simulatedAuthor: 'Claude',
    })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({
      success: true,
      explanation: 'Reworded the paragraph.',
      isProposal: false,
      newVersionId: 'v2',
      changedFiles: ['two.html'],
    })
    const user = fake.requests[0]!.body.messages.at(-1).content as string
    expect(user).toContain('The user is looking at two.html')
    expect(user).toContain('<folio-file path="two.html">')
    expect(user).not.toContain('<folio-file path="index.html">')
    expect(user).toContain('selector: #x')
    expect(user).toContain('Attached file "notes.txt"')
    expect(user).toContain('Say it with fewer words.')
    const folio = (await server.api.send(getFolio, { params: { id } })).body
    expect(folio.versions.at(-1)).toMatchObject({ versionId: 'v2', author: 'Claude', commitMessage: 'Reworded the paragraph.' })
    expect(folio.versions.at(-1).files['index.html']).toBe(page('Deck'))
    server.ts.logs.splice(0)
  })

  it('runs the folio’s read tools and reports them as Tool call objects', async () => {
    const id = await server.api.create('Tools', { 'index.html': page('Tools'), 'data.json': '{"otters": 13}' })
    fake.reply(openaiToolCall('read_file', { path: 'data.json' }), openaiText(answer('Added the count.', { 'index.html': page('Tools', '<p>13 otters</p>') })))
    const reply = await ai(id, { userPrompt: 'Show the otter count from data.json' })
    expect(reply.status).toBe(200)
    expect(reply.body.toolCalls).toEqual([{ id: 'call_1', name: 'read_file', arguments: { path: 'data.json' }, status: 'done', result: '{"otters": 13}' }])
    expect(reply.body.isProposal).toBe(true)
    // The tool's result went back to the model in the second request.
    expect(fake.requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
    server.ts.logs.splice(0)
  })

  it('refuses web_fetch of private addresses and of addresses the user did not name', async () => {
    const id = await server.api.create('Fetch', { 'index.html': page('Fetch') })
    fake.reply(
      openaiToolCall('web_fetch', { url: `${fake.url}/secret` }, 'call_a'),
      openaiToolCall('web_fetch', { url: 'http://169.254.169.254/latest/meta-data' }, 'call_b'),
      openaiText(answer('Could not fetch.', { 'index.html': page('Fetch', '<p>none</p>') })),
    )
    const reply = await ai(id, { userPrompt: 'Summarise http://169.254.169.254/latest/meta-data please' })
    expect(reply.status).toBe(200)
    expect(reply.body.toolCalls.map((c: { status: string; result: string }) => [c.status, c.result])).toEqual([
      ['error', `Only addresses the user wrote can be fetched; ${fake.url}/secret is not one of them.`],
      ['error', "169.254.169.254 is not a public address: the server does not connect to private, loopback or reserved networks on a user's behalf."],
    ])
    // The fake itself was asked only by folio's model calls, never fetched as a page.
    expect(fake.requests.map((r) => r.url)).toEqual(['/v1/chat/completions', '/v1/chat/completions', '/v1/chat/completions'])
    server.ts.logs.splice(0)
  })

  it('asks the user through ask_user, and continues with the tool-response action', async () => {
    const id = await server.api.create('Ask', { 'index.html': page('Ask') })
    fake.reply(openaiToolCall('ask_user', { question: 'Which colour?', choices: ['red', 'blue'] }, 'call_q'))
    const asked = await ai(id, { userPrompt: 'Change the colour' })
    expect(asked.status).toBe(200)
    expect(asked.body).toEqual({
      success: true,
      explanation: 'Which colour?',
      toolCalls: [{ id: 'call_q', name: 'ask_user', arguments: { question: 'Which colour?', choices: ['red', 'blue'] }, status: 'pending' }],
    })
    expect((await ai(id, { action: 'tool-response', toolCallId: 'call_other', result: 'red' })).body.error).toBe('INVALID_BODY')

    fake.reply(openaiText(answer('Blue it is.', { 'index.html': page('Ask', '<h1 style="color:blue">Ask</h1>') })))
    const answered = await ai(id, { action: 'tool-response', toolCallId: 'call_q', result: 'blue' })
    expect(answered.status).toBe(200)
    expect(answered.body).toMatchObject({ isProposal: true, explanation: 'Blue it is.', changedFiles: ['index.html'] })
    const messages = fake.requests[1]!.body.messages
    expect(messages.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_q' }] })
    expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_q', content: 'blue' })
    server.ts.logs.splice(0)
  })

  it('answers the spec’s errors: blank prompt, unusable output, provider failures', async () => {
    const id = await server.api.create('Errors', { 'index.html': page('Errors') })
    for (const body of [{}, { userPrompt: '   ' }]) {
      expect(await ai(id, body).then((r) => [r.status, r.body.error])).toEqual([400, 'A non-empty prompt is required.'])
    }
    expect((await ai('nope', { userPrompt: 'x' })).status).toBe(404)

    const failures: Array<[ReturnType<typeof jsonReply>, string]> = [
      [openaiText('Sure, here are some thoughts but no files.'), 'The model answered without any file.'],
      [
        openaiText(answer('Cut.', { 'index.html': '<!DOCTYPE html><html><body><h1>Half' })),
        'The model’s index.html is not a complete HTML document (it may have been cut off).',
      ],
      [
        jsonReply(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }),
        'The AI provider (openai, model local-model) refused the credentials (401): Incorrect API key provided',
      ],
      [
        jsonReply(429, { error: { message: 'Rate limit reached', type: 'requests' } }, { 'retry-after': '0' }),
        'The AI provider (openai, model local-model) is rate limiting (429): Rate limit reached. Try again later.',
      ],
      [jsonReply(200, '{"id": "chatcmpl-1", "choices": [{"mess'), 'The AI provider (openai, model local-model) answered 200: Invalid JSON response'],
    ]
    for (const [reply, message] of failures) {
      fake.reply(reply)
      const failed = await ai(id, { userPrompt: 'Do it' })
      expect([failed.status, failed.body]).toEqual([500, { error: 'AI failed to generate HTML content.', message }])
    }
    expect((await server.api.send(getFolio, { params: { id } })).body.versions).toHaveLength(1)
    server.ts.logs.splice(0)
  })

  it('a client that hangs up stops the provider request, and nothing is committed or logged', async () => {
    const id = await server.api.create('Gone', { 'index.html': page('Gone') })
    const arrived = new Promise<void>((resolve) => fake.reply(() => resolve()))
    const closed = fake.nextEarlyClose()
    const controller = new AbortController()
    const client = createClient({ server: server.ts.url })
    const request = client
      .request(aiConversation, { params: { id }, json: { userPrompt: 'Slowly', executeImmediately: true }, signal: controller.signal })
      .catch((error: Error) => error.name)
    await arrived
    controller.abort()
    expect(await request).toBe('AbortError')
    await closed
    expect(fake.closedEarly).toEqual(['/v1/chat/completions'])
    expect((await server.api.send(getFolio, { params: { id } })).body.versions).toHaveLength(1)
    expect(server.ts.logs.filter((line) => !line.includes('[http]'))).toEqual([])
    server.ts.logs.splice(0)
  })

  it('uses the request’s own key for that request only', async () => {
    const id = await server.api.create('Own key', { 'index.html': page('Own key') })
    fake.reply(openaiText(answer('Done.', { 'index.html': page('Own key!') })))
    expect((await ai(id, { userPrompt: 'Go', apiKey: 'sk-request-only-5678', selectedModel: 'my-model' })).status).toBe(200)
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-request-only-5678')
    expect(fake.requests[0]!.body.model).toBe('my-model')
    expect(await everything(server.ts.dataDir)).not.toContain('sk-request-only')
    expect(server.ts.logs.join('\n')).not.toContain('sk-request-only')
    server.ts.logs.splice(0)
  })
})

describe('OSS without any provider', () => {
  const server = useServer()

  it('answers 400 No AI model configured., and says how to configure one', async () => {
    const id = await server.api.create('No model')
    const reply = await server.api.send(aiConversation, { params: { id }, body: { userPrompt: 'Make it nice' } })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('No AI model configured.')
    expect(reply.body.message).toContain('FOLIO_AI_PROVIDER')
    // Everything else works without AI: commit-proposal and clear-chat need no model.
    const commit = await server.api.send(aiConversation, {
      params: { id },
      body: { action: 'commit-proposal', proposedFiles: { 'index.html': page('By hand') } },
    })
    expect(commit.body.newVersionId).toBe('v2')
    expect((await server.api.send(aiConversation, { params: { id }, body: { action: 'clear-chat' } })).status).toBe(200)
  })
})
