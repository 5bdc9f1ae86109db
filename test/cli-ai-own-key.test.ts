import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { answer, type FakeAi, openaiStreamFrames, openaiText, page, type Reply, sseReply, startFakeAi } from './helpers/fake-ai.js'
import { runCli, spawnCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

// Issue 26: a self-hosted server without a model of its own takes the caller's, per request:
// folio ai --model <id> --api-key-env <NAME>. The key is read from the variable, never from argv.
let fake: FakeAi
beforeAll(async () => {
  fake = await startFakeAi()
})
afterAll(() => fake.close())
beforeEach(() => fake.reset())

const PROVIDER_KEY = `sk-own-${'9f'.repeat(20)}`

describe('folio ai with the caller’s own model and key', () => {
  // The operator named where OpenAI-compatible requests go (the fake), but no provider, model or key.
  const server = useServer(() => ({ config: { ai: { OPENAI_BASE_URL: `${fake.url}/v1` } } }))

  it('sends --model and the key from --api-key-env to the provider, and the key is not in the process arguments', async () => {
    const id = await server.api.create('Own key', { 'index.html': page('Own key') })
    let pid = 0
    const cmdlines: string[] = []
    // The CLI is waiting for this answer: its command line is read while it runs.
    const planWhileRunning: Reply = async (res, rec) => {
      cmdlines.push((await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' '))
      return openaiText('- the plan')(res, rec)
    }
    fake.reply(
      planWhileRunning,
      sseReply(openaiStreamFrames(answer('Bluer now.', { 'index.html': page('Own key', '<h1 style="color:blue">Own key</h1>') }), 25)),
    )
    const run = spawnCli(
      ['--server', server.ts.url, 'ai', id, 'make', 'it', 'blue', '--model', 'openai:own-model', '--api-key-env', 'MY_PROVIDER_KEY', '--yes'],
      { MY_PROVIDER_KEY: PROVIDER_KEY },
    )
    pid = run.child.pid!
    expect(await run.exited, run.stderr()).toBe(0)
    expect(run.lines.join('\n')).toContain('Committed v2 (index.html).')

    expect(fake.requests).toHaveLength(2)
    for (const request of fake.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`)
      expect(request.body.model).toBe('own-model')
    }
    expect(cmdlines).toHaveLength(1)
    expect(cmdlines[0]).toContain('--api-key-env MY_PROVIDER_KEY')
    expect(cmdlines[0]).not.toContain(PROVIDER_KEY)
    expect(run.stderr()).not.toContain(PROVIDER_KEY)
    expect((await server.api.send(getFolio, { params: { id } })).body.versions.at(-1).files['index.html']).toContain('color:blue')
  })

  it('refuses a variable that is not set, and a key typed in place of a name without echoing it', async () => {
    const id = await server.api.create('No key', { 'index.html': page('No key') })
    const unset = await runCli(['--server', server.ts.url, 'ai', id, 'anything', '--api-key-env', 'FOLIO_TEST_UNSET_KEY'])
    expect(unset.code).toBe(2)
    expect(unset.stderr).toContain('FOLIO_TEST_UNSET_KEY is not set (or empty) in this environment')
    const typed = await runCli(['--server', server.ts.url, 'ai', id, 'anything', '--api-key-env', 'sk-typed-by-mistake-123'])
    expect(typed.code).toBe(2)
    expect(typed.stderr).toContain('--api-key-env takes the name of an environment variable')
    expect(typed.stderr).not.toContain('sk-typed-by-mistake-123')
    expect(fake.requests).toEqual([])
  })
})

describe('folio ai against a server without a model', () => {
  const server = useServer()

  it('suggests exactly the options that bring one: --model and --api-key-env', async () => {
    const id = await server.api.create('Modelless', { 'index.html': page('Modelless') })
    const result = await runCli(['--server', server.ts.url, 'ai', id, 'make it blue'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`No AI model configured on ${server.ts.url}.`)
    expect(result.stderr).toContain(`folio ai ${id} "…" --model openai:gpt-4.1-mini --api-key-env OPENAI_API_KEY`)
    expect(result.stderr).not.toContain('selectedModel')
    const json = await runCli(['--server', server.ts.url, '--json', 'ai', id, 'make it blue'])
    expect(json.json()).toMatchObject({ error: 'No AI model configured.', message: expect.stringContaining('--api-key-env') })
  })
})
