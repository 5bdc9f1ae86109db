import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getKey } from '../src/api/keys.js'
import { mcp } from '../src/api/mcp.js'
import { type LoopbackTunnelServer, startLoopbackTunnelServer } from './helpers/localtunnel-server.js'
import { dataOf, textOf } from './helpers/mcp-answers.js'
import { useServer } from './helpers/use-server.js'

let relay: LoopbackTunnelServer
beforeAll(async () => {
  relay = await startLoopbackTunnelServer()
})
// Registered before useServer's: after-hooks run last first, so the server closes before the relay.
afterAll(() => relay?.close())
const s = useServer(() => ({ config: { tunnel: { host: relay.url, startTimeoutMs: 5_000 } } }))

async function connect(base: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'folio-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.path, base), key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {}))
  return client
}
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult

describe('the tunnel through MCP (a real localtunnel client and a loopback tunnel server)', () => {
  it('starts and stops as tools; through it /api/mcp needs the key, and its tools run as that remote caller', async () => {
    const local = await connect(s.ts.url)
    try {
      expect(dataOf(await call(local, 'tunnel_status'))).toMatchObject({ state: 'stopped', url: null })
      const started = await call(local, 'tunnel_start')
      const url = dataOf(started).url as string
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
      expect(textOf(started).split('\n\n')[0]).toBe(`Public URL: ${url}`)

      const anonymous = await fetch(new URL(mcp.path, url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
      expect(anonymous.status).toBe(401)
      expect(anonymous.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource", scope="folio"`,
      )

      const key = (await s.api.send(getKey)).body.apiKey as string
      const remote = await connect(url, key)
      try {
        const created = await call(remote, 'create_folio', { title: 'Through the tunnel', status: 'published' })
        expect(created.isError).toBeFalsy()
        expect((created.content[0] as { text: string }).text).toContain(`${new URL(url).origin}/share/`)
      } finally {
        await remote.close()
      }
      expect((await call(local, 'tunnel_stop')).isError).toBeFalsy()
      expect(dataOf(await call(local, 'tunnel_status'))).toMatchObject({ state: 'stopped' })
    } finally {
      await local.close()
    }
  })
})
