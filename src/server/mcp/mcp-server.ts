import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { ERRORS } from '../../api/errors.js'
import type { McpTool, ToolContext, ToolRequest } from '../../api/mcp-tools.js'
import type { ApiError } from '../http/errors.js'
import { registerFolioApp } from './mcp-app.js'
import { registerFolioResources } from './mcp-resources.js'
import { validationError } from '../route.js'

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
  const server = new Server(
    { name: 'folio', title: 'folio', version: options.version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  )
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]))
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: options.tools.map(listing) }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. tools/list names them.`)
    return callTool(tool, request.params.arguments ?? {}, options)
  })
  registerFolioResources(server, options.send)
  registerFolioApp(server, { base: options.context.base })
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
      // No $schema: the same line in every tool, on every turn.
      inputSchema: withoutSchemaKey(z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' })) as Tool['inputSchema'],
      annotations: tool.annotations,
      // MCP Apps: hosts that support them show this resource with the answer; others ignore it.
      ...(tool.ui ? { _meta: { ui: { resourceUri: tool.ui } } } : {}),
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
  // The data once: the text for the agent, then the result as JSON (no structuredContent: no
  // tool declares an outputSchema, and a client would show the model both).
  const said = tool.say(answer, args, options.context)
  return { content: [{ type: 'text', text: withinBudget(tool.textOnly ? said : `${said}\n\n${JSON.stringify(tool.result(answer, args))}`) }] }
}

/** The most one tool answer holds: a model's context is shared with everything else it does. */
export const MAX_TOOL_ANSWER_BYTES = 256 * 1024

/** An answer past the budget is cut at it, and says so and where the rest is. */
function withinBudget(text: string): string {
  const bytes = Buffer.byteLength(text)
  if (bytes <= MAX_TOOL_ANSWER_BYTES) return text
  const note = `\n\n[Cut: this answer is ${bytes.toLocaleString('en-US')} bytes, over the ${MAX_TOOL_ANSWER_BYTES / 1024} KB a tool answer holds. Ask for less (get_folio without files, list_versions), or read files one at a time with read_file or the folio://{id}/{path} resources.]`
  const room = MAX_TOOL_ANSWER_BYTES - Buffer.byteLength(note)
  // Cut on a character boundary: decoding the cut bytes drops a split last character.
  return (
    Buffer.from(text)
      .subarray(0, room)
      .toString('utf8')
      .replace(/\uFFFD$/, '') + note
  )
}

const withoutSchemaKey = (schema: Record<string, unknown>) => {
  const { $schema: _, ...rest } = schema
  return rest
}

/** An endpoint's {error, message?} as a tool error: the spec's string first, then what to do. */
function errorResult(body: { error: string; message?: string }): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: body.message ? `${body.error}: ${body.message}` : body.error }] }
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
