import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { getToolUiResourceUri, RESOURCE_MIME_TYPE, type McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge'
import { build } from 'esbuild'
import type { Browser, Frame, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mcp } from '../src/api/mcp.js'
import { FOLIO_APP_URI } from '../src/api/mcp-tools.js'
import { ARTIFACTS, launchBrowser } from './helpers/browser.js'
import { dataOf } from './helpers/mcp-answers.js'
import { useServer } from './helpers/use-server.js'

/**
 * Issue 24: folios shown inside the chat (MCP Apps, @modelcontextprotocol/ext-apps). A host as
 * the extension's spec describes a web host: folio's real MCP endpoint through the MCP SDK's own
 * client; the ui:// resource read and rendered in a sandbox proxy of another origin, under the
 * CSP the spec builds from the resource's `_meta.ui.csp`, the view in a sandboxed frame inside
 * it; the SDK's AppBridge (its host side) handing the view the tool's input and answer. The view
 * must show the folio's share page, with its pin and reactions, in real Chromium.
 */
const s = useServer()
let browser: Browser
let host: Server
let hostOrigin: string
let sandboxOrigin: string
const problems: string[] = []

const APP_TOOLS = ['get_folio', 'create_folio', 'update_folio']

/** A page with a pinned comment on #target. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<style>body { margin: 0; font-family: sans-serif; padding: 24px; } #target { margin-top: 80px; width: 260px; padding: 20px; background: #ffe8a3; }</style></head>
<body><h1>Launch plan</h1><p>Three steps.</p><div id="target">Ship in May</div></body></html>`

beforeAll(async () => {
  browser = await launchBrowser()
  const hostScript = await bundleHostSide()
  host = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/host.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(
        `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>MCP Apps host</title></head><body><script>${hostScript}</script></body></html>`,
      )
    } else if (url.pathname === '/sandbox.html') {
      const csp = JSON.parse(url.searchParams.get('csp') ?? '{}') as McpUiResourceCsp
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': cspOf(csp) })
      res.end(sandboxProxy(url.searchParams.get('host') ?? ''))
    } else {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve))
  const { port } = host.address() as AddressInfo
  // The host and its sandbox: two origins (the spec requires it), both other than folio's.
  hostOrigin = `http://localhost:${port}`
  sandboxOrigin = `http://127.0.0.1:${port}`
  expect(new URL(s.ts.url).origin).not.toBe(sandboxOrigin)
})

afterAll(async () => {
  await browser?.close()
  if (host) await new Promise((resolve) => host.close(resolve))
  expect(problems).toEqual([])
})

/** The ext-apps SDK's host side, bundled for the host page (the package ships ES modules only). */
async function bundleHostSide(): Promise<string> {
  const out = await build({
    stdin: {
      contents:
        "import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge'; window.McpAppsHost = { AppBridge, PostMessageTransport }",
      resolveDir: process.cwd(),
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'silent',
  })
  return out.outputFiles[0]!.text
}

/** The spec's CSP for a view ("CSP Construction from Metadata"): only the declared domains. */
function cspOf(csp: McpUiResourceCsp): string {
  const list = (domains?: string[]) => (domains ?? []).join(' ')
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `style-src 'self' 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `connect-src 'self' ${list(csp.connectDomains)}`,
    `img-src 'self' data: ${list(csp.resourceDomains)}`,
    `font-src 'self' ${list(csp.resourceDomains)}`,
    `media-src 'self' data: ${list(csp.resourceDomains)}`,
    `frame-src ${list(csp.frameDomains) || "'none'"}`,
    "object-src 'none'",
    `base-uri ${list(csp.baseUriDomains) || "'self'"}`,
  ].join('; ')
}

/**
 * The sandbox proxy (spec: "Sandbox proxy"): says it is ready, loads the HTML it is sent into a
 * sandboxed inner frame (which keeps this document's CSP), relays everything else both ways.
 */
function sandboxProxy(hostOrigin: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><style>html, body { margin: 0; height: 100%; } iframe { display: block; width: 100%; height: 100%; border: 0; }</style></head><body><script>
const HOST = ${JSON.stringify(hostOrigin)};
const inner = document.createElement('iframe');
inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
document.body.appendChild(inner);
addEventListener('message', (event) => {
  if (event.source === parent) {
    if (event.origin !== HOST) return;
    if (event.data?.method === 'ui/notifications/sandbox-resource-ready') {
      const { html, sandbox } = event.data.params;
      if (typeof sandbox === 'string') inner.setAttribute('sandbox', sandbox);
      inner.contentDocument.open();
      inner.contentDocument.write(html);
      inner.contentDocument.close();
    } else {
      inner.contentWindow.postMessage(event.data, '*');
    }
  } else if (event.source === inner.contentWindow) {
    parent.postMessage(event.data, HOST);
  }
});
parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, HOST);
</script></body></html>`
}

/** The SDK's own client, as a host connects to folio (advertising the Apps extension). */
async function connect(): Promise<Client> {
  const client = new Client(
    { name: 'mcp-apps-host', version: '1.0.0' },
    { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } } },
  )
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.path, s.ts.url)))
  return client
}

/** The package's own host helper (typed for MCP SDK v2's Tool; the wire shape is the same). */
const uiUriOf = (tool: object) => getToolUiResourceUri(tool as Parameters<typeof getToolUiResourceUri>[0])

const textOf = (content: object) => ('text' in content && typeof content.text === 'string' ? content.text : undefined)

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult

interface UiResource {
  html: string
  csp?: McpUiResourceCsp
}

/** What a host does before rendering: the tool's resourceUri from tools/list, the resource read. */
async function uiResourceFor(client: Client, tool: string): Promise<UiResource> {
  const listed = (await client.listTools()).tools.find((t) => t.name === tool)!
  const uri = uiUriOf(listed)
  expect(uri).toBe(FOLIO_APP_URI)
  const { contents } = await client.readResource({ uri: uri! })
  expect(contents).toHaveLength(1)
  const content = contents[0]!
  expect(content.mimeType).toBe(RESOURCE_MIME_TYPE)
  expect(textOf(content)).toBeDefined()
  return { html: textOf(content)!, csp: (content._meta?.ui as { csp?: McpUiResourceCsp } | undefined)?.csp }
}

interface Rendered {
  page: Page
  /** The view's own document (inside the sandbox proxy). */
  view: Frame
  /** The heights the view asked for (ui/notifications/size-changed). */
  sizes: () => Promise<number[]>
}

/** Renders the view as a web host does and hands it the tool's input and answer. */
async function render(resource: UiResource, args: Record<string, unknown>, result: CallToolResult, name: string): Promise<Rendered> {
  const context = await browser.newContext({ viewport: { width: 900, height: 1000 } })
  const page = await context.newPage()
  page.on('pageerror', (error) => problems.push(`${name}: ${error.message}`))
  // CSP refusals are console errors: the view must need nothing its _meta.ui.csp did not declare.
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${name}: ${message.text()}`)
  })
  await page.goto(`${hostOrigin}/host.html`)
  await page.evaluate(
    async ({ resource, args, result, sandbox }) => {
      const { AppBridge, PostMessageTransport } = (window as any).McpAppsHost
      const frame = document.createElement('iframe')
      frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms')
      frame.title = 'folio view'
      frame.style.cssText = 'display: block; width: 720px; height: 120px; border: 0'
      const proxyReady = new Promise<void>((resolve) => {
        addEventListener('message', function ready(event) {
          if (event.source !== frame.contentWindow || event.data?.method !== 'ui/notifications/sandbox-proxy-ready') return
          removeEventListener('message', ready)
          resolve()
        })
      })
      const url = new URL('/sandbox.html', sandbox)
      url.searchParams.set('csp', JSON.stringify(resource.csp ?? {}))
      url.searchParams.set('host', location.origin)
      frame.src = url.href
      document.body.append(frame)
      await proxyReady

      const sizes: number[] = ((window as any).sizes = [])
      const bridge = new AppBridge(
        null,
        { name: 'mcp-apps-host', version: '1.0.0' },
        { openLinks: {} },
        {
          hostContext: {
            theme: 'light',
            displayMode: 'inline',
            availableDisplayModes: ['inline'],
            platform: 'web',
            containerDimensions: { width: 720, maxHeight: 800 },
          },
        },
      )
      bridge.onsizechange = ({ height }: { height?: number }) => {
        if (height === undefined) return
        sizes.push(height)
        frame.style.height = `${height}px`
      }
      bridge.onopenlink = async ({ url }: { url: string }) => {
        ;(window as any).opened = url
        return {}
      }
      const initialized = new Promise<void>((resolve) => {
        bridge.oninitialized = () => resolve()
      })
      await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow))
      await bridge.sendSandboxResourceReady({ html: resource.html, csp: resource.csp })
      await initialized
      await bridge.sendToolInput({ arguments: args })
      await bridge.sendToolResult(result)
    },
    { resource, args, result, sandbox: sandboxOrigin },
  )
  let view: Frame | undefined
  await expect.poll(() => (view = page.frames().find((f) => f.parentFrame()?.url().startsWith(`${sandboxOrigin}/sandbox.html`))) !== undefined).toBe(true)
  return { page, view: view!, sizes: () => page.evaluate(() => (window as any).sizes as number[]) }
}

/** The share page in the view's frame, and the folio's own frame in it. */
async function sharePageIn(page: Page, id: string): Promise<{ share: Frame; folio: Frame }> {
  let share: Frame | undefined
  let folio: Frame | undefined
  await expect
    .poll(
      () => {
        share = page.frames().find((f) => f.url().startsWith(`${s.ts.url}/share/${id}`))
        folio = share?.childFrames().find((f) => f.url().includes(`/v/${id}/`))
        return Boolean(folio)
      },
      { timeout: 15_000 },
    )
    .toBe(true)
  return { share: share!, folio: folio! }
}

/** The pin of a comment in the folio's frame: drawn, shown, on its element. */
async function pinOf(folio: Frame, commentId: string, selector: string): Promise<string> {
  return folio.evaluate(
    ({ commentId, selector }) => {
      const pin = document.querySelector('folio-pins')?.shadowRoot?.querySelector(`.pin[data-comment-id="${commentId}"]`) as HTMLElement | null
      if (!pin) return 'missing'
      const p = pin.getBoundingClientRect()
      const r = document.querySelector(selector)!.getBoundingClientRect()
      const x = p.left + p.width / 2
      const y = p.top + p.height / 2
      const on = x >= r.left - 0.5 && x <= r.right + 0.5 && y >= r.top - 0.5 && y <= r.bottom + 0.5
      return `${pin.hidden ? 'hidden' : 'shown'} ${pin.dataset.placed} ${on ? 'on' : 'off'} the element`
    },
    { commentId, selector },
  )
}

describe('MCP Apps: a folio shown in the chat', () => {
  it('lists the view on get_folio, create_folio and update_folio, and serves it as an MCP App with its CSP', async () => {
    const client = await connect()
    try {
      const { tools } = await client.listTools()
      for (const tool of tools) {
        // The package's own host helper reads what folio lists.
        expect(uiUriOf(tool), tool.name).toBe(APP_TOOLS.includes(tool.name) ? FOLIO_APP_URI : undefined)
        if (APP_TOOLS.includes(tool.name)) expect(tool._meta, tool.name).toMatchObject({ ui: { resourceUri: FOLIO_APP_URI } })
      }
      expect(tools.filter((t) => APP_TOOLS.includes(t.name))).toHaveLength(3)

      const { resources } = await client.listResources()
      const listed = resources.find((r) => r.uri === FOLIO_APP_URI)
      expect(listed).toMatchObject({ mimeType: RESOURCE_MIME_TYPE, _meta: { ui: { csp: { frameDomains: [new URL(s.ts.url).origin] } } } })

      const { contents } = await client.readResource({ uri: FOLIO_APP_URI })
      expect(contents).toHaveLength(1)
      const content = contents[0]!
      expect(content).toMatchObject({
        uri: FOLIO_APP_URI,
        mimeType: RESOURCE_MIME_TYPE,
        _meta: { ui: { csp: { frameDomains: [new URL(s.ts.url).origin] }, prefersBorder: true } },
      })
      const html = textOf(content)!
      expect(html).toMatch(/^<!doctype html>/i)
      // Written in for the caller, as it reached the server; the script is inline (no other request).
      expect(html).toContain(`<meta name="folio-base" content="${s.ts.url}">`)
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet/i)
    } finally {
      await client.close()
    }
  })

  it('shows a published folio of get_folio with its pin and reactions, sized to the view', async () => {
    const client = await connect()
    try {
      const created = dataOf(await call(client, 'create_folio', { title: 'Launch plan', defaultFiles: { 'index.html': PAGE }, status: 'published' }))
      const id = created.id as string
      const comment = dataOf(
        await call(client, 'add_comment', { id, text: 'Is May realistic?', versionId: 'v1', filename: 'index.html', selector: '#target', x: 10, y: 10 }),
      )
      await call(client, 'react', { id, increments: { '🔥': 1 } })

      const args = { id }
      const result = await call(client, 'get_folio', args)
      // A client without Apps gets the answer it always did: the sentence, then the JSON.
      expect(result.content).toHaveLength(1)
      expect(dataOf(result)).toMatchObject({ id, title: 'Launch plan', status: 'published' })

      const { page, view, sizes } = await render(await uiResourceFor(client, 'get_folio'), args, result, 'get_folio')
      const shareUrl = `${s.ts.url}/share/${id}`
      const open = view.getByRole('link', { name: `Open “Launch plan” in a new tab: ${shareUrl.replace('http://', '')}` })
      await expect.poll(() => open.getAttribute('href')).toBe(shareUrl)
      expect(await view.locator('main').getAttribute('aria-busy')).toBeNull()
      const frame = view.locator('iframe.frame')
      expect(await frame.getAttribute('src')).toBe(shareUrl)
      expect(await frame.getAttribute('title')).toContain('Launch plan')
      // Opened by the host (ui/open-link): a sandboxed view may open no window itself.
      await open.click()
      await expect.poll(() => page.evaluate(() => (window as any).opened)).toBe(shareUrl)

      const { share, folio } = await sharePageIn(page, id)
      await share.locator('.stage[data-bridge="ready"]').waitFor({ state: 'attached', timeout: 10_000 })
      await expect.poll(() => pinOf(folio, comment.id, '#target'), { timeout: 10_000 }).toBe('shown element on the element')
      await expect.poll(() => share.getByRole('button', { name: 'React with 🔥 (1)' }).count()).toBe(1)

      // Sized to its content: the bar and the frame, asked of the host, which gave it that height.
      await expect.poll(async () => (await sizes()).at(-1) ?? 0).toBeGreaterThan(560 + 30)
      const asked = (await sizes()).at(-1)!
      expect(asked).toBeLessThanOrEqual(800)
      expect(await page.locator('iframe[title="folio view"]').evaluate((f) => Math.round(f.getBoundingClientRect().height))).toBe(asked)
      await page.screenshot({ path: join(ARTIFACTS, 'issue24-mcp-app-get-folio.png') })
      await page.context().close()
    } finally {
      await client.close()
    }
  })

  it('shows a draft from create_folio as its viewers do: the notice, then the folio once published', async () => {
    const client = await connect()
    try {
      const args = { title: 'Draft deck', initialHtml: '<h1 id="hello">Hello from a draft</h1>' }
      const result = await call(client, 'create_folio', args)
      const id = dataOf(result).id as string
      expect(dataOf(result).status).toBe('draft')

      const { page } = await render(await uiResourceFor(client, 'create_folio'), args, result, 'create_folio')
      let share: Frame | undefined
      await expect.poll(() => (share = page.frames().find((f) => f.url() === `${s.ts.url}/share/${id}`)) !== undefined).toBe(true)
      await expect.poll(() => share!.getByRole('heading', { name: 'This folio is not published yet' }).count()).toBe(1)
      // The view stays in the chat: the share page in it shows the folio once it is published.
      await call(client, 'publish_folio', { id })
      const { folio } = await sharePageIn(page, id)
      await expect.poll(() => folio.locator('#hello').textContent(), { timeout: 15_000 }).toBe('Hello from a draft')
      await page.screenshot({ path: join(ARTIFACTS, 'issue24-mcp-app-create-draft.png') })
      await page.context().close()
    } finally {
      await client.close()
    }
  })

  it('says what went wrong when the answer is an error', async () => {
    const client = await connect()
    try {
      const args = { id: 'nosuchfolio1' }
      const result = await call(client, 'get_folio', args)
      expect(result.isError).toBe(true)
      const { page, view } = await render(await uiResourceFor(client, 'get_folio'), args, result, 'error')
      await expect.poll(() => view.getByRole('alert').textContent()).toContain('not found')
      expect(await view.locator('iframe').count()).toBe(0)
      await page.context().close()
    } finally {
      await client.close()
    }
  })
})
