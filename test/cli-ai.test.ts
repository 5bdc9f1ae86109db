import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { getFolio, listFolios } from '../src/api/files.js'
import { answer, type FakeAi, openaiStreamFrames, openaiText, page, sseReply, startFakeAi } from './helpers/fake-ai.js'
import { runCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

let fake: FakeAi
beforeAll(async () => {
  fake = await startFakeAi()
})
afterAll(() => fake.close())
beforeEach(() => fake.reset())

/** The model's two stages as ai-stream asks for them: a plan, then the streamed answer. */
const planAndAnswer = (text: string) => [openaiText('- the plan'), sseReply(openaiStreamFrames(text, 25))]

describe('folio ai and folio create --prompt, against a server with a model', () => {
  const server = useServer(() => ({ config: { ai: { FOLIO_AI_PROVIDER: 'openai', OPENAI_BASE_URL: `${fake.url}/v1`, FOLIO_AI_MODEL: 'cli-model' } } }))
  const cli = (...args: string[]) => runCli(['--server', server.ts.url, ...args])

  it('streams the explanation, shows the diff, and commits with --yes', async () => {
    const id = await server.api.create('Title', { 'index.html': page('Title'), 'notes.txt': 'keep me\n' })
    fake.reply(...planAndAnswer(answer('The title is bigger now.', { 'index.html': page('Title', '<h1 style="font-size:4rem">Title</h1>') })))
    const result = await cli('ai', id, 'make', 'the', 'title', 'bigger', '--yes')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('The title is bigger now.')
    expect(result.stderr).toContain('+<h1 style="font-size:4rem">Title</h1>')
    expect(result.stderr).toContain('-<h1>Title</h1>')
    expect(result.stderr).not.toContain('<folio-file')
    expect(result.stdout.trim()).toBe('Committed v2 (index.html).')
    expect(fake.requests[0]!.body.messages.at(-2).content).toMatch(/Request:\s+make the title bigger$/)
    const folio = (await server.api.send(getFolio, { params: { id } })).body
    expect(folio.versions.at(-1)).toMatchObject({ versionId: 'v2', commitMessage: 'The title is bigger now.' })
    expect(folio.versions.at(-1).files['notes.txt']).toBe('keep me\n')
  })

  it('with --json and without --yes prints the proposal and commits nothing; without a terminal it will not ask', async () => {
    const id = await server.api.create('Json', { 'index.html': page('Json') })
    fake.reply(...planAndAnswer(answer('Greener.', { 'index.html': page('Json', '<h1 style="color:green">Json</h1>') })))
    const json = await cli('--json', 'ai', id, 'greener')
    expect(json.code, json.stderr).toBe(0)
    expect(json.json()).toMatchObject({
      explanation: 'Greener.',
      changedFiles: ['index.html'],
      committed: false,
      diff: expect.stringContaining('+<h1 style="color:green">Json</h1>'),
    })

    fake.reply(...planAndAnswer(answer('Bluer.', { 'index.html': page('Json', '<h1 style="color:blue">Json</h1>') })))
    const asked = await cli('ai', id, 'bluer')
    expect(asked.code).toBe(2)
    expect(asked.stderr).toContain('Pass --yes to commit without asking.')
    expect((await server.api.send(getFolio, { params: { id } })).body.versions).toHaveLength(1)
  })

  it('folio create --prompt in OSS: the starter page rewritten by the model as the folio’s second version', async () => {
    fake.reply(openaiText(answer('An otter deck.', { 'index.html': page('Otters', '<section class="slide"><h1>Otters</h1></section>') })))
    const result = await cli('--json', 'create', '--prompt', 'a deck about otters')
    expect(result.code, result.stderr).toBe(0)
    const { id, title } = result.json()
    expect(title).toBe('a deck about otters')
    const folio = (await server.api.send(getFolio, { params: { id } })).body
    expect(folio.versions).toHaveLength(2)
    expect(folio.versions[1].files['index.html']).toContain('<h1>Otters</h1>')
  })

  it('says what the server refused: a provider failure ends the command with its message', async () => {
    const id = await server.api.create('Refused', { 'index.html': page('Refused') })
    fake.reply(
      openaiText('- plan'),
      (res) => void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided' } })),
    )
    const result = await cli('ai', id, 'anything', '--yes')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'AI failed to generate HTML content. The AI provider (openai, model cli-model) refused the credentials (401): Incorrect API key provided',
    )
  })
})

describe('folio create --prompt without a model', () => {
  const server = useServer()

  it('says how to configure one, and leaves no folio behind', async () => {
    const result = await runCli(['--server', server.ts.url, 'create', '--prompt', 'a deck about otters'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('No AI model configured')
    expect(result.stderr).toContain('FOLIO_AI_PROVIDER')
    expect((await server.api.send(listFolios)).body).toEqual([])
  })
})
