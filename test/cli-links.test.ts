import { describe, expect, it } from 'vitest'
import { recordAnalytics } from '../src/api/engagement.js'
import { sharePage } from '../src/api/viewer.js'
import { runCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

// Issue 28: folio links <id>: a link per recipient, made, listed and revoked from a terminal.
const s = useServer()
const cli = (args: string[]) => runCli(['--server', s.ts.url, ...args])

describe('folio links <id>', () => {
  it('makes a link for one recipient, lists it with its figures, and revokes it', async () => {
    const id = await s.api.create('Board deck', { 'index.html': '<h1>Board</h1>' }, { status: 'published' })
    const none = await cli(['links', id])
    expect(none.code).toBe(0)
    expect(none.stdout).toContain(`No recipient links yet: folio links ${id} add "Dana at Acme" makes one.`)

    const made = await cli(['links', id, 'add', 'Dana at Acme', '--expires', '7d', '--max-views', '3', '--json'])
    expect(made.code, made.stderr).toBe(0)
    const link = made.json()
    expect(link).toMatchObject({ name: 'Dana at Acme', status: 'active', maxViews: 3, url: `${s.ts.url}/share/${id}?link=${link.id}` })
    const week = Date.parse(link.expiresAt) - Date.now()
    expect(week).toBeGreaterThan(6.9 * 86_400_000)
    expect(week).toBeLessThan(7.1 * 86_400_000)
    const said = await cli(['links', id, 'add', 'Lee'])
    expect(said.stdout).toMatch(new RegExp(`^Send Lee this link:\\n${s.ts.url}/share/${id}\\?link=\\S+\\n$`))

    await s.api.send(recordAnalytics, { params: { id }, body: { isInitial: true, sessionSeconds: 12, link: link.id } })
    const listed = await cli(['links', id])
    const dana = listed.stdout.split('\n').find((l) => l.startsWith('Dana at Acme'))!
    expect(dana).toMatch(/^Dana at Acme\s+active\s+1 views\s+12 s\s+http/)

    const revoked = await cli(['links', id, 'revoke', link.id])
    expect(revoked.code).toBe(0)
    expect(revoked.stdout).toContain('Revoked the link for Dana at Acme')
    expect((await s.api.send(sharePage, { params: { id }, query: { link: link.id } })).status).toBe(410)
    expect((await cli(['links', id, '--json'])).json().map((l: { status: string }) => l.status)).toEqual(['revoked', 'active'])
  })

  it('says what to do next for what it cannot do', async () => {
    const id = await s.api.create('Deck')
    const noName = await cli(['links', id, 'add'])
    expect(noName.code).toBe(2)
    expect(noName.stderr).toContain(`Who is the link for? folio links ${id} add "Dana at Acme"`)
    const badSpan = await cli(['links', id, 'add', 'Dana', '--expires', 'soon'])
    expect(badSpan.code).toBe(2)
    expect(badSpan.stderr).toContain('--expires soon: give a date-time (2026-12-31T18:00Z) or a span (7d, 12h, 30m).')
    const unknown = await cli(['links', id, 'revoke', 'nope'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain(`No link nope on folio ${id}; folio links ${id} lists them.`)
    const help = await cli(['links', '--help'])
    expect(help.stdout).toContain('folio links kL9VtGLOsbNK add "Dana at Acme"')
  })
})
