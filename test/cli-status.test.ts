import { describe, expect, it } from 'vitest'
import { createComment } from '../src/api/engagement.js'
import { runCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

/** folio status without a terminal: one snapshot, with the latest comments of every folio. */

const server = useServer()

describe('folio status (snapshot)', () => {
  it('shows the latest comments per folio, in text and in JSON', async () => {
    const { api, ts } = server
    const quiet = await api.create('Quiet deck', undefined, { status: 'published' })
    const older = await api.create('Older deck', undefined, { status: 'published' })
    const newer = await api.create('Newer deck', undefined, { status: 'published' })
    const comment = (id: string, text: string) =>
      api.send(createComment, { params: { id }, body: { text, versionId: 'v1', filename: 'index.html', author: 'Ann' } })
    for (const text of ['o1', 'o2']) await comment(older, text)
    for (const text of ['n1', 'n2', 'n3', 'n4']) await comment(newer, text)

    const json = await runCli(['status', '--json', '--server', ts.url])
    expect(json.code).toBe(0)
    const byId = new Map<string, any>(json.json().folios.map((f: any) => [f.id, f]))
    expect(byId.get(newer).comments).toMatchObject({ folioId: newer, state: 'ok', total: 4 })
    expect(byId.get(newer).comments.latest.map((c: any) => c.text)).toEqual(['n4', 'n3', 'n2'])
    expect(byId.get(older).comments.latest.map((c: any) => c.text)).toEqual(['o2', 'o1'])
    expect(byId.get(quiet).comments).toMatchObject({ state: 'ok', total: 0 })

    const text = await runCli(['status', '--server', ts.url])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('Latest comments on “Newer deck” (4 in all):\n  Ann: n4\n  Ann: n3\n  Ann: n2')
    expect(text.stdout).toContain('Latest comments on “Older deck”:\n  Ann: o2\n  Ann: o1')
    expect(text.stdout).toContain('No comments yet on “Quiet deck”.')
  })
})

describe('folio status with a key the server refuses', () => {
  it('exits 1 and says the key was refused, not missing (text and --json)', async () => {
    const { api, ts } = server
    await api.create('Keyed deck', undefined, { status: 'published' })

    const text = await runCli(['status', '--server', ts.url, '--key', 'folio_live_wrong'])
    expect(text.code).toBe(1)
    expect(text.stderr).toContain(`The key from --key was refused by ${ts.url}`)
    expect(text.stderr).not.toContain('needs an API key')
    expect(text.stdout).toBe('')

    const json = await runCli(['status', '--json', '--server', ts.url, '--key', 'folio_live_wrong'])
    expect(json.code).toBe(1)
    // The snapshot still goes to stdout for scripts, saying what happened.
    const snapshot = JSON.parse(json.stdout.split('\n')[0]!)
    expect(snapshot).toMatchObject({ server: { reachable: true }, key: 'refused', folios: [] })
    expect(snapshot.foliosError).toMatch(/^the server refused the API key/)
    expect(json.stdout + json.stderr).toContain('was refused')
  })
})
