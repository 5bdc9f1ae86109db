import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { getKey } from '../src/api/keys.js'
import { mcp } from '../src/api/mcp.js'
import { DEFAULT_RATE_LIMITS } from '../src/server/limits/rate-limit.js'
import { lanAddresses } from './helpers/cli-process.js'
import { tinyPng } from './helpers/images.js'
import { dataOf, textOf } from './helpers/mcp-answers.js'
import { useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'

/** The SDK's own client over its Streamable HTTP transport, as any agent connects. */
async function connect(base: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'folio-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(mcp.path, base), key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {})
  await client.connect(transport)
  return client
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult

/** A raw JSON-RPC POST, as the spec shows it (no Accept, no initialize). */
const rpc = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(new URL(mcp.path, base), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

describe('POST /api/mcp in OSS, from this machine (no key)', () => {
  const s = useServer()

  it('lists the tools, creates and publishes a folio, comments, resolves and reads the brief', async () => {
    const client = await connect(s.ts.url)
    try {
      const { tools } = await client.listTools()
      const names = tools.map((t) => t.name)
      for (const name of [
        'list_folios',
        'get_folio',
        'read_file',
        'get_feedback',
        'create_folio',
        'update_folio',
        'delete_folio',
        'list_versions',
        'restore_version',
        'get_brief',
        'list_comments',
        'add_comment',
        'resolve_comment',
        'delete_comment',
        'react',
        'publish_folio',
        'unpublish_folio',
        'set_sharing',
        'upload_image',
        'list_design_systems',
        'tunnel_status',
        'tunnel_start',
        'tunnel_stop',
      ]) {
        expect(names, name).toContain(name)
      }

      const created = await call(client, 'create_folio', { title: 'Agent deck', initialHtml: '<h1>Hello</h1>' })
      expect(created.isError).toBeFalsy()
      const id = dataOf(created).id as string
      expect(textOf(created)).toContain(`Created "Agent deck" (${id})`)
      expect(dataOf(created).status).toBe('draft')

      const published = await call(client, 'publish_folio', { id })
      expect(dataOf(published).status).toBe('published')
      expect(textOf(published)).toContain(`${s.ts.url}/share/${id}`)
      // The HTTP API sees what the tool did.
      expect((await s.api.send(getFolio, { params: { id } })).body.status).toBe('published')

      const added = await call(client, 'add_comment', { id, text: 'Make the title bigger', versionId: 'v1', filename: 'index.html' })
      const commentId = dataOf(added).id as string
      expect(commentId).toMatch(/^c_/)
      const brief = await call(client, 'get_brief', { id })
      // The brief once: markdown, no JSON copy of it.
      expect(textOf(brief)).toContain('Make the title bigger')
      expect(textOf(brief).split('Make the title bigger')).toHaveLength(2)

      const resolved = await call(client, 'resolve_comment', { id, commentId, resolved: true })
      expect(dataOf(resolved)).toEqual({ id: commentId, resolved: true })
      expect(textOf(await call(client, 'get_brief', { id }))).not.toContain('Make the title bigger')
      const listed = await call(client, 'list_comments', { id })
      expect(dataOf(listed).map((c: { id: string; resolved: boolean }) => [c.id, c.resolved])).toEqual([[commentId, true]])
    } finally {
      await client.close()
    }
  })

  it('updates, lists versions, restores, uploads an image and reads files as resources', async () => {
    const client = await connect(s.ts.url)
    try {
      const id = dataOf(await call(client, 'create_folio', { title: 'History', defaultFiles: { 'index.html': '<p>one</p>' } })).id
      const updated = await call(client, 'update_folio', { id, files: { 'index.html': '<p>two</p>' }, commitMessage: 'second' })
      expect(dataOf(updated)).toMatchObject({ latestVersionId: 'v2', fileList: ['index.html'] })
      const versions = dataOf(await call(client, 'list_versions', { id })).versions
      expect(versions.map((v: { versionId: string; commitMessage: string }) => [v.versionId, v.commitMessage])).toEqual([
        ['v1', expect.any(String)],
        ['v2', 'second'],
      ])
      const restored = await call(client, 'restore_version', { id, restoreVersionId: 'v1' })
      expect(dataOf(restored).latestVersionId).toBe('v3')

      const png = tinyPng()
      const uploaded = await call(client, 'upload_image', { id, path: 'img/dot.png', data: png.toString('base64') })
      expect(dataOf(uploaded)).toEqual({ success: true, path: 'img/dot.png' })

      const page = await client.readResource({ uri: `folio://${id}/index.html` })
      expect(page.contents[0]).toMatchObject({ mimeType: 'text/html; charset=utf-8', text: '<p>one</p>' })
      const image = await client.readResource({ uri: `folio://${id}/img/dot.png` })
      expect(Buffer.from((image.contents[0] as { blob: string }).blob, 'base64').equals(png)).toBe(true)
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['folio://{id}/{path}'])
      const { resources } = await client.listResources()
      expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining([`folio://${id}/index.html`, `folio://${id}/img/dot.png`]))
      await expect(client.readResource({ uri: `folio://${id}/missing.html` })).rejects.toThrow(/no missing.html/)
      // The tools' requests ran under their own targets: nothing they answered is kept for /api/mcp.
      expect((await fetch(new URL(mcp.path, s.ts.url))).status).toBe(405)
    } finally {
      await client.close()
    }
  })

  it('answers an endpoint’s error as a tool error carrying the spec’s string', async () => {
    const client = await connect(s.ts.url)
    try {
      const missing = await call(client, 'get_folio', { id: 'nosuchfolio' })
      expect(missing.isError).toBe(true)
      expect(textOf(missing)).toMatch(/^Project not found\./)
      // The contract's own validation, before the endpoint is asked: the same string as HTTP.
      const blank = await call(client, 'create_folio', { title: '  ' })
      expect(blank.isError).toBe(true)
      expect(textOf(blank)).toBe('Title is required')
      const noText = await call(client, 'add_comment', { id: 'nosuchfolio', versionId: 'v1', filename: 'index.html' })
      expect(textOf(noText)).toMatch(/^Missing comment parameters/)
      const badImage = await call(client, 'upload_image', {
        id: dataOf(await call(client, 'create_folio', { title: 'Img' })).id,
        path: 'a.png',
        data: Buffer.from('not an image').toString('base64'),
      })
      expect(textOf(badImage)).toMatch(/^Unsupported file type/)
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/)
    } finally {
      await client.close()
    }
  })

  it('answers a bare JSON-RPC tools/list (no Accept header, no initialize) with JSON, and GET with 405', async () => {
    const reply = await rpc(s.ts.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/)
    const body = await reply.json()
    expect(body.result.tools.length).toBeGreaterThan(10)
    const get = await fetch(new URL(mcp.path, s.ts.url), { headers: { accept: 'text/event-stream' } })
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
  })
})

describe('POST /api/mcp needs the key from another machine and refuses a wrong one', () => {
  const s = useServer({ host: '0.0.0.0' })
  const lan = lanAddresses()[0]
  const fromLan = () => `http://${lan}:${new URL(s.ts.url).port}`

  it('401 with WWW-Authenticate naming the protected-resource metadata', async () => {
    expect(lan, 'a non-loopback IPv4 address of this machine').toBeTruthy()
    for (const [base, headers] of [
      [fromLan(), {}],
      [fromLan(), { authorization: 'Bearer folio_live_wrong' }],
      [s.ts.url, { authorization: 'Bearer folio_live_wrong' }],
    ] as const) {
      const reply = await rpc(base, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers)
      expect(reply.status).toBe(401)
      expect(reply.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", scope="folio"`)
      expect((await reply.json()).error).toBe('Unauthorized')
    }
    await expect(connect(fromLan())).rejects.toThrow()
  })

  it('works from another machine with the key, and its tools run as that caller', async () => {
    const key = (await s.api.send(getKey)).body.apiKey as string
    const client = await connect(fromLan(), key)
    try {
      const created = await call(client, 'create_folio', { title: 'From the LAN' })
      expect(created.isError).toBeFalsy()
      expect(textOf(await call(client, 'list_folios'))).toContain('From the LAN')
    } finally {
      await client.close()
    }
  })
})

describe('POST /api/mcp in Cloud mode', () => {
  // Cloud has no FOLIO_API_KEY: a workspace's own key (issue 12).
  const s = useCloudServer()

  it('needs the key even from this machine, and offers no tunnel tools', async () => {
    expect((await rpc(s.ts.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(401)
    const client = await connect(s.ts.url, s.workspace.apiKey)
    try {
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names).toContain('create_folio')
      expect(names.filter((n) => n.startsWith('tunnel'))).toEqual([])
      const created = await call(client, 'create_folio', { title: 'Cloud folio' })
      expect(created.isError).toBeFalsy()
      expect(dataOf(await call(client, 'get_folio', { id: dataOf(created).id })).title).toBe('Cloud folio')
    } finally {
      await client.close()
    }
  })
})

describe('POST /api/mcp keeps the endpoints’ limits', () => {
  const s = useServer({ config: { rateLimits: { ...DEFAULT_RATE_LIMITS, comments: 2 }, limits: { jsonBodyBytes: 64 * 1024 } } })

  it('counts a tool against its endpoint’s rate limit, and refuses a message over the body limit', async () => {
    const client = await connect(s.ts.url)
    try {
      const id = dataOf(await call(client, 'create_folio', { title: 'Limited', status: 'published' })).id
      const comment = (text: string) => call(client, 'add_comment', { id, text, versionId: 'v1', filename: 'index.html' })
      expect((await comment('one')).isError).toBeFalsy()
      expect((await comment('two')).isError).toBeFalsy()
      const third = await comment('three')
      expect(third.isError).toBe(true)
      expect(textOf(third)).toMatch(/^Too many requests/)
    } finally {
      await client.close()
    }
    const big = await rpc(s.ts.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_folio', arguments: { title: 'Big', initialHtml: 'x'.repeat(70 * 1024) } },
    })
    expect(big.status).toBe(413)
    expect((await big.json()).error).toBe('Payload too large')
  })
})
