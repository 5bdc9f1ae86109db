import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js'
import { FOLIO_APP_URI } from '../../api/mcp-tools.js'
import { escapeHtml } from '../../domain/html.js'
import { addResource } from './mcp-resources.js'
import { loadWebAssets } from '../viewer/web-assets.js'

/** What marks a resource as an MCP App's view (the extension's RESOURCE_MIME_TYPE). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app'

export interface FolioAppOptions {
  /** The server's origin as the caller reached it (ToolContext.base): the view's frame loads the share page from it. */
  base: string
}

/** Where the page (src/web/pages/mcp-app.html) takes the origin. */
const BASE_SLOT = 'content="{{base}}"'

/**
 * MCP Apps (the io.modelcontextprotocol/ui extension): the view that hosts supporting it show
 * with the answers of the tools naming FOLIO_APP_URI (api/mcp-tools.ts; tools/list gives them
 * `_meta.ui.resourceUri`). Hosts without Apps never read it. The page is dist/web/mcp-app.html,
 * one document with its script inline (src/web/mcp-app/), with the caller's origin written in;
 * its `_meta.ui.csp` lets it frame that origin, and nothing else: it loads nothing and connects
 * nowhere itself (what the share page loads is under the share page's own policy).
 */
export function registerFolioApp(server: Server, options: FolioAppOptions): void {
  const frameDomains = URL.canParse(options.base) ? [new URL(options.base).origin] : []
  const ui = { csp: { frameDomains }, prefersBorder: true }
  const resource: Resource = {
    uri: FOLIO_APP_URI,
    name: 'folio-view',
    title: 'Folio view',
    description: "A folio's share page with its comment pins and reactions, shown with get_folio, create_folio and update_folio.",
    mimeType: MCP_APP_MIME_TYPE,
    _meta: { ui },
  }
  const read = (): ReadResourceResult => {
    const page = loadWebAssets().mcpAppPage
    // A function: the origin is written as it is ($ is not a replacement pattern here).
    const text = page.replace(BASE_SLOT, () => `content="${escapeHtml(options.base)}"`)
    return { contents: [{ uri: FOLIO_APP_URI, mimeType: MCP_APP_MIME_TYPE, text, _meta: { ui } }] }
  }
  addResource(server, { resource, read })
}
