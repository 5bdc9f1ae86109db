import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js'
import { getFolio, listFolios } from '../../api/files.js'
import type { ToolRequest } from '../../api/mcp-tools.js'
import type { Folio, FolioListItem } from '../../api/schemas.js'
import { mimeForPath } from '../../domain/image-sniff.js'
import type { z } from 'zod'

/** resources/list names the files of this many folios, the most recently updated. */
const LISTED_FOLIOS = 20
/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002

/** A resource of another module's (the MCP Apps view: mcp-app.ts), listed and read beside the files. */
export interface ServedResource {
  resource: Resource
  read(): ReadResourceResult
}

/** The low-level Server takes one handler per method: the others' resources are kept here, per server. */
const served = new WeakMap<Server, Map<string, ServedResource>>()

/** Adds a resource to this server's resources/list and resources/read (either order with registerFolioResources). */
export function addResource(server: Server, entry: ServedResource): void {
  let entries = served.get(server)
  if (!entries) served.set(server, (entries = new Map()))
  entries.set(entry.resource.uri, entry)
}

export const folioFileUri = (id: string, path: string) => `folio://${encodeURIComponent(id)}/${path.split('/').map(encodeURIComponent).join('/')}`

function parseUri(uri: string): { id: string; path: string } | undefined {
  const match = /^folio:\/\/([^/]+)\/(.+)$/.exec(uri)
  if (!match) return undefined
  try {
    return { id: decodeURIComponent(match[1]!), path: match[2]!.split('/').map(decodeURIComponent).join('/') }
  } catch {
    return undefined
  }
}

/**
 * A folio's files as MCP resources, folio://{id}/{path}: the latest version's, read through the
 * same endpoints (and so the same credential checks) as the tools. Text files come as text,
 * binary ones (stored as data URLs) as blobs.
 */
export function registerFolioResources(server: Server, send: (request: ToolRequest) => Promise<Response>): void {
  const get = async <T>(path: string): Promise<T> => {
    const response = await send({ method: 'GET', path })
    const body = (await response.json().catch(() => undefined)) as (T & { error?: string; message?: string }) | undefined
    if (!response.ok)
      throw new McpError(
        response.status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InternalError,
        [body?.error, body?.message].filter(Boolean).join(': ') || `HTTP ${response.status}`,
      )
    return body as T
  }
  const folioPath = (id: string, files: 'latest' | 'none') => `${getFolio.path.replace('{id}', encodeURIComponent(id))}?files=${files}`

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: 'folio://{id}/{path}',
        name: 'folio-file',
        title: 'A file of a folio',
        description: 'A file of the latest version of a folio (index.html, css, images, …): text as text, images as blobs.',
      },
    ],
  }))

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const folios = (await get<Array<z.output<typeof FolioListItem>>>(listFolios.path)).slice(0, LISTED_FOLIOS)
    const resources: Resource[] = [...(served.get(server)?.values() ?? [])].map((entry) => entry.resource)
    for (const folio of await Promise.all(folios.map((f) => get<z.output<typeof Folio>>(folioPath(f.id, 'none'))))) {
      for (const path of folio.versions.at(-1)?.fileList ?? []) {
        resources.push({ uri: folioFileUri(folio.id, path), name: `${folio.title}: ${path}`, mimeType: mimeForPath(path) })
      }
    }
    return { resources }
  })

  server.setRequestHandler(ReadResourceRequestSchema, async (request): Promise<ReadResourceResult> => {
    const { uri } = request.params
    const own = served.get(server)?.get(uri)
    if (own) return own.read()
    const target = parseUri(uri)
    if (!target) throw new McpError(ErrorCode.InvalidParams, `Not a folio file: ${uri}; folio://{id}/{path} is.`)
    const folio = await get<z.output<typeof Folio>>(folioPath(target.id, 'latest'))
    const content = folio.versions.at(-1)?.files?.[target.path]
    if (content === undefined) throw new McpError(RESOURCE_NOT_FOUND, `Not found: the latest version of ${target.id} has no ${target.path}.`)
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(content)
    if (data) return { contents: [{ uri, mimeType: data[1], blob: data[2]! }] }
    return { contents: [{ uri, mimeType: mimeForPath(target.path), text: content }] }
  })
}
