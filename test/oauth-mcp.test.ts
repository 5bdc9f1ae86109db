import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { dataOf } from './helpers/mcp-answers.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it, vi } from 'vitest'
import { listOAuthGrants } from '../src/api/oauth.js'
import { approve, REDIRECT_URI } from './helpers/oauth.js'
import { useCloudServer } from './helpers/workspaces.js'

/** What an MCP host keeps for a server (in memory here): its registration, tokens, PKCE verifier. */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed
  saved?: OAuthTokens
  verifier = ''
  lastAuthUrl?: URL
  lastState = ''
  readonly redirectUrl = REDIRECT_URI
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK probe',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  state() {
    return (this.lastState = crypto.randomUUID())
  }
  clientInformation() {
    return this.info
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.lastAuthUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined
    if (scope === 'all' || scope === 'client') this.info = undefined
  }
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text
const structured = (result: unknown) => dataOf(result as CallToolResult)

/**
 * The MCP SDK's own Client and OAuth support, knowing nothing but the MCP URL: the 401's
 * WWW-Authenticate → protected-resource metadata → authorization server metadata → dynamic
 * registration → the consent page (approved through its form with the workspace key) → code
 * with PKCE → tools; then the access token expires and the SDK refreshes it by itself.
 */
describe('an MCP SDK client connects to Cloud with OAuth alone', () => {
  const s = useCloudServer({ config: { rateLimits: { auth: 10_000 }, oauthAccessTokenSeconds: 2 } })

  it('authorizes, lists the tools, publishes a folio, comments, reads the brief, and refreshes', async () => {
    const mcpUrl = new URL('/api/mcp', s.ts.url)
    const provider = new MemoryProvider()
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })
    const refused = await new Client({ name: 'probe', version: '1.0.0' }).connect(first).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(UnauthorizedError)
    expect(provider.info?.client_id).toBeTruthy()
    const authUrl = provider.lastAuthUrl!
    expect(authUrl.searchParams.get('resource')).toBe(s.ts.url)
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256')

    const callback = await approve({ url: authUrl, state: provider.lastState, verifier: provider.verifier }, s.ts.url, { apiKey: s.workspace.apiKey })
    // The SDK leaves state and iss to the host: checked here as a host must.
    expect(callback.searchParams.get('state')).toBe(provider.lastState)
    expect(callback.searchParams.get('iss')).toBe(s.ts.url)
    await first.finishAuth(callback.searchParams.get('code')!)
    expect(provider.saved?.access_token).toMatch(/^folio_at_/)

    const client = new Client({ name: 'probe', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create_folio', 'publish_folio', 'add_comment', 'resolve_comment', 'get_brief']))
      expect(tools.map((t) => t.name)).not.toContain('tunnel_start')

      const id = structured(await client.callTool({ name: 'create_folio', arguments: { title: 'Agent deck', initialHtml: '<h1>Hello</h1>' } })).id as string
      expect(text(await client.callTool({ name: 'publish_folio', arguments: { id } }))).toContain('published')
      const comment = structured(
        await client.callTool({ name: 'add_comment', arguments: { id, text: 'Bigger title', versionId: 'v1', filename: 'index.html' } }),
      )
      expect(text(await client.callTool({ name: 'get_brief', arguments: { id } }))).toContain('Bigger title')
      const resolved = await client.callTool({ name: 'resolve_comment', arguments: { id, commentId: comment.id, resolved: true } })
      expect(text(resolved).split('\n\n')[0]).toBe(`Comment ${comment.id} is resolved.`)
      // The folio is the workspace's: its key holder sees it.
      expect((await s.workspace.api.send(listOAuthGrants)).body.grants[0]).toMatchObject({ clientName: 'MCP SDK probe' })

      // The access token lives 2 s here: the next call gets a 401, and the SDK refreshes (rotation).
      const before = provider.saved!
      // Past its 2 s without waiting them out: the clock (Date only; timers stay real) moves on.
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
      vi.setSystemTime(Date.now() + 2_200)
      try {
        expect(structured(await client.callTool({ name: 'get_folio', arguments: { id } })).status).toBe('published')
      } finally {
        vi.useRealTimers()
      }
      expect(provider.saved!.access_token).not.toBe(before.access_token)
      expect(provider.saved!.refresh_token).not.toBe(before.refresh_token)
    } finally {
      await client.close()
    }
  })
})
