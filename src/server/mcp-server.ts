import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { ERRORS } from '../api/errors.js'
import type { McpTool, ToolContext, ToolRequest } from '../api/mcp-tools.js'
import type { ApiError } from './errors.js'
import { registerFolioResources } from './mcp-resources.js'
import { validationError } from './route.js'

export interface McpServerOptions {
  tools: readonly McpTool[]
  /** Runs an endpoint request as the caller: through the router, with the caller's credential. */
  send: (request: ToolRequest) => Promise<Response>
  context: ToolContext
  version: string
}

const INSTRUCTIONS =
  'folio publishes HTML folios (versioned sets of files) as share pages and collects what viewers say. Typical flow: create_folio (files or initialHtml), publish_folio (the text gives the share URL), later get_brief for the open feedback, update_folio with new files, resolve_comment. Folio files are resources folio://{id}/{path}.'

/**
 * The MCP server of one request (the transport is stateless: a server per request). Tools are
 * listed from the contracts (api/mcp-tools.ts) and run as HTTP requests to their endpoints, so a
 * tool answers, fails and is limited exactly as its endpoint. The low-level Server is used
 * rather than McpServer.registerTool: the input schemas render straight from zod (io: input, as
 * the OpenAPI document does), and errors keep the spec's strings without the SDK's prefixes.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server({ name: 'folio', title: 'folio', version: options.version }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS })
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]))
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: options.tools.map(listing) }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. tools/list names them.`)
    return callTool(tool, request.params.arguments ?? {}, options)
  })
  registerFolioResources(server, options.send)
  return server
}

const listings = new Map<McpTool, Tool>()

/** A tool as tools/list shows it; rendered once per tool (the table is constant). */
function listing(tool: McpTool): Tool {
  let listed = listings.get(tool)
  if (!listed) {
    listed = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Tool['inputSchema'],
      annotations: { title: tool.title, ...tool.annotations },
      // Which operation of GET /api/openapi the tool runs.
      _meta: { 'folio/operationId': tool.contract.operationId },
    }
    listings.set(tool, listed)
  }
  return listed
}

async function callTool(tool: McpTool, args: Record<string, unknown>, options: McpServerOptions): Promise<CallToolResult> {
  const parsed = tool.input.safeParse(args)
  // The endpoint would refuse these alike (the same schemas): answered with its error.
  if (!parsed.success) return errorResult(apiErrorBody(validationError('body', parsed.error)))
  let response: Response
  try {
    response = await options.send(tool.request(args))
  } catch {
    return errorResult({ error: ERRORS.internalError.error, message: 'The tool could not run its endpoint (the server logged why).' })
  }
  const answer = await readAnswer(response)
  if (!response.ok) return errorResult(isErrorBody(answer) ? answer : { error: ERRORS.internalError.error, message: `HTTP ${response.status}` })
  const result = tool.result(answer)
  return {
    content: [
      { type: 'text', text: tool.say(answer, args, options.context) },
      { type: 'text', text: JSON.stringify(result) },
    ],
    ...(isObject(result) ? { structuredContent: result } : {}),
  }
}

/** An endpoint's {error, message?} as a tool error: the spec's string first in the text, the body as structuredContent. */
function errorResult(body: { error: string; message?: string }): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: body.message ? `${body.error}: ${body.message}` : body.error }], structuredContent: body }
}

const apiErrorBody = (error: ApiError) => (error.detail ? { error: error.error, message: error.detail } : { error: error.error })

async function readAnswer(response: Response): Promise<unknown> {
  const text = await response.text()
  try {
    return text ? JSON.parse(text) : undefined
  } catch {
    return text
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isErrorBody = (value: unknown): value is { error: string; message?: string } => isObject(value) && typeof value.error === 'string'
