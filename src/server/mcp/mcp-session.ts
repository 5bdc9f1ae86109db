import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { FastResponse } from 'srvx'
import { createMcpServer, type McpServerOptions } from './mcp-server.js'

/**
 * One MCP exchange, stateless (a server and a transport per request; the SDK allows neither to
 * serve two), answered as one JSON document. Its own module, loaded on the first MCP request:
 * the SDK (and ajv under it) is a tenth of the server's start-up, and most servers never see one.
 */
export async function answerMcp(request: Request, options: McpServerOptions & { maxBodyBytes: number }): Promise<Response> {
  const server = createMcpServer(options)
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: options.maxBodyBytes,
  })
  await server.connect(transport)
  try {
    const answer = await transport.handleRequest(request)
    // Complete already (JSON mode): as a FastResponse it goes straight to node:http, not through a stream.
    return new FastResponse(answer.body ? await answer.text() : null, { status: answer.status, headers: Object.fromEntries(answer.headers) })
  } finally {
    // The JSON answer is complete by now.
    await transport.close()
    await server.close()
  }
}
