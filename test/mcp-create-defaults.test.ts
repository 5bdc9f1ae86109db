import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFolio, getFolio } from '../src/api/files.js'
import { mcp } from '../src/api/mcp.js'
import { dataOf, textOf } from './helpers/mcp-answers.js'
import { chartDashboardPage, marpPage } from './helpers/real-decks.js'
import { useServer } from './helpers/use-server.js'

// Issue 26: an agent's report is not a deck because the agent left the mode out.
const s = useServer()
let client: Client

beforeAll(async () => {
  // The SDK's own client over its Streamable HTTP transport, as any agent connects.
  client = new Client({ name: 'folio-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.path, s.ts.url)))
})
afterAll(() => client.close())

const call = async (args: Record<string, unknown>) => (await client.callTool({ name: 'create_folio', arguments: args })) as CallToolResult
const stored = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body

const REPORT = `<!doctype html><html><head><title>Dependency audit</title><meta name="description" content="What we depend on, and what to drop."></head>
<body><h1>Dependency audit</h1><p>Twelve packages are unused.</p><table><tr><th>Package</th><th>Used</th></tr><tr><td>left-pad</td><td>no</td></tr></table></body></html>`

describe('create_folio without a mode or description', () => {
  it('an agent’s report is a document described by its page; the tool says the mode it picked', async () => {
    const created = await call({ title: 'Audit', initialHtml: REPORT })
    const { id, projectMode } = dataOf(created)
    expect(projectMode).toBe('document')
    expect(textOf(created)).toContain(`Created "Audit" (${id}), a document,`)
    expect(await stored(id)).toMatchObject({ title: 'Audit', description: 'What we depend on, and what to drop.', projectMode: 'document' })
  })

  it('a Chart.js page is a dashboard, a Marp deck a deck (from defaultFiles); what the agent gives wins', async () => {
    const charts = dataOf(await call({ title: 'Growth', defaultFiles: { 'index.html': chartDashboardPage(), 'chart.umd.js': '/* the library */' } }))
    expect(await stored(charts.id)).toMatchObject({ projectMode: 'dashboard', description: 'Q3 2026, updated every Monday.' })
    const marp = dataOf(await call({ title: 'Q3', defaultFiles: { 'index.html': marpPage() } }))
    expect((await stored(marp.id)).projectMode).toBe('deck')
    const given = dataOf(await call({ title: 'Given', initialHtml: REPORT, projectMode: 'infography', description: 'Mine' }))
    expect(await stored(given.id)).toMatchObject({ projectMode: 'infography', description: 'Mine' })
  })

  it('without a page: the starter of the spec’s default mode, deck', async () => {
    const bare = dataOf(await call({ title: 'Blank' }))
    expect(await stored(bare.id)).toMatchObject({ projectMode: 'deck' })
  })
})

describe('POST /api/files keeps the spec’s defaults', () => {
  it('a title is required; projectMode defaults to deck and the description to the generic text, whatever the page', async () => {
    const untitled = await s.api.send(createFolio, { body: { initialHtml: REPORT } as never })
    expect([untitled.status, untitled.body.error]).toEqual([400, 'Title is required'])
    const created = await s.api.send(createFolio, { body: { title: 'Audit', initialHtml: REPORT } })
    expect(created.body.project).toMatchObject({ projectMode: 'deck', description: 'A single-page HTML folio.' })
  })
})
