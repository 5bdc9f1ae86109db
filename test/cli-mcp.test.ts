import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { cliEnv } from './helpers/cli.js'
import { BIN } from './helpers/cli-process.js'
import { useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'
import { dataOf, textOf } from './helpers/mcp-answers.js'

/** `folio mcp` as an agent runs it: the built CLI, spoken to by the SDK's stdio client. */
async function folioMcp(env: Record<string, string>, args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: cliEnv(env) as Record<string, string>,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk) => (stderr += chunk))
  const client = new Client({ name: 'folio-test', version: '1.0.0' })
  return { client, transport, connect: () => client.connect(transport), stderr: () => stderr }
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult

describe('folio mcp against an OSS server on this machine', () => {
  const s = useServer()

  it('lists the server’s tools and runs them: create, publish, comment, brief', async () => {
    const mcp = await folioMcp({ FOLIO_URL: s.ts.url })
    await mcp.connect()
    try {
      const names = (await mcp.client.listTools()).tools.map((t) => t.name)
      expect(names).toEqual(expect.arrayContaining(['create_folio', 'publish_folio', 'get_brief', 'tunnel_status']))
      const created = await call(mcp.client, 'create_folio', { title: 'Over stdio', initialHtml: '<h1>stdio</h1>' })
      const id = dataOf(created).id as string
      expect((await call(mcp.client, 'publish_folio', { id })).isError).toBeFalsy()
      expect((await s.api.send(getFolio, { params: { id } })).body.status).toBe('published')
      await call(mcp.client, 'add_comment', { id, text: 'Louder', versionId: 'v1', filename: 'index.html' })
      const brief = await call(mcp.client, 'get_brief', { id })
      expect((brief.content[0] as { text: string }).text).toContain('Louder')
      const missing = await call(mcp.client, 'get_folio', { id: 'nosuchfolio' })
      expect(missing.isError).toBe(true)
      expect(textOf(missing)).toMatch(/^Project not found\./)
      const page = await mcp.client.readResource({ uri: `folio://${id}/index.html` })
      expect(page.contents[0]).toMatchObject({ text: '<h1>stdio</h1>' })
    } finally {
      await mcp.client.close()
    }
    expect(mcp.stderr()).toBe('')
  })

  it('answers what was piped in before stdin closed, one JSON-RPC message a line on stdout', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { env: cliEnv({ FOLIO_URL: s.ts.url }), stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stdin.end(
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_folio', arguments: { title: 'Piped' } } },
      ]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(''),
    )
    const [code] = await once(child, 'exit')
    expect(code).toBe(0)
    const answers = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2])
    expect(answers.find((a) => a.id === 1).result.tools.length).toBeGreaterThan(10)
    expect(dataOf(answers.find((a) => a.id === 2).result).title).toBe('Piped')
  })

  it('answers every request with why when the server cannot be reached', async () => {
    const mcp = await folioMcp({}, ['--server', 'http://127.0.0.1:9'])
    await expect(mcp.connect()).rejects.toThrow(/Cannot reach folio at http:\/\/127\.0\.0\.1:9/)
    await mcp.client.close()
  })
})

describe('folio mcp against a Cloud server', () => {
  // Cloud has no FOLIO_API_KEY: a workspace's own key (issue 12).
  const s = useCloudServer()

  it('sends the key the CLI resolves (FOLIO_API_KEY), and says so when there is none', async () => {
    const withKey = await folioMcp({ FOLIO_URL: s.ts.url, FOLIO_API_KEY: s.workspace.apiKey })
    await withKey.connect()
    try {
      const names = (await withKey.client.listTools()).tools.map((t) => t.name)
      expect(names).toContain('list_folios')
      expect(names).not.toContain('tunnel_status')
      expect((await call(withKey.client, 'list_folios')).isError).toBeFalsy()
    } finally {
      await withKey.client.close()
    }
    const withoutKey = await folioMcp({ FOLIO_URL: s.ts.url })
    await expect(withoutKey.connect()).rejects.toThrow(/Unauthorized: .* said 401 \(it needs a key/)
    await withoutKey.client.close()
  })
})
