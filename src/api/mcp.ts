import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { named } from './schemas.js'

/** Where an MCP client learns how to get a credential (RFC 9728); the 401 of POST /api/mcp points here. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource'

export const JsonRpcMessage = named(
  'JsonRpcMessage',
  z
    .object({
      jsonrpc: z.literal('2.0'),
      id: z.union([z.string(), z.number()]).optional().describe('Absent in a notification'),
      method: z.string().describe('initialize, tools/list, tools/call, resources/list, resources/templates/list, resources/read, ping, …'),
      params: z.record(z.string(), z.unknown()).optional(),
    })
    .describe('A JSON-RPC 2.0 request or notification of the Model Context Protocol'),
)

export const mcp = defineContract({
  operationId: 'mcp',
  method: 'POST',
  path: '/api/mcp',
  tag: 'Agents',
  summary: 'Model Context Protocol (Streamable HTTP, stateless): the API as tools for AI agents',
  description:
    'One JSON-RPC 2.0 message per request, answered with one JSON document (no session, no server-sent stream: GET and DELETE are 405). The tools are this API’s operations, their input schemas and descriptions built from the same contracts as this document (tools/list); a tool runs its endpoint with the caller’s credential, so its answer, errors and limits are the endpoint’s: the result carries the endpoint’s JSON (structuredContent when it is an object) and a short text; an endpoint’s error is a tool result with isError and {error, message} in its text and structuredContent. Folio files are resources folio://{id}/{path} (the latest version). The credential is the workspace’s, as on every protected endpoint; a 401 carries WWW-Authenticate: Bearer resource_metadata="<server>/.well-known/oauth-protected-resource". Failures of the protocol itself (a body that is not JSON-RPC, a Content-Type other than application/json) are JSON-RPC error objects, as MCP clients expect.',
  access: 'required',
  rawBody: { contentType: 'application/json', description: 'A JSON-RPC 2.0 message', schema: JsonRpcMessage },
  response: { status: 200, description: 'The JSON-RPC response (202 with no body for a notification)', contentType: 'application/json' },
  errors: [
    when(ERRORS.unauthorized, 'Missing or invalid credential; WWW-Authenticate names the protected-resource metadata'),
    when(ERRORS.payloadTooLarge, 'The message is over the JSON body limit'),
  ],
})
