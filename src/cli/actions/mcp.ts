import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Command } from 'commander'
import { mcp } from '../../api/mcp.js'
import { type GlobalOptions, targetHere } from '../context.js'
import { logger } from '../logger.js'
import type { Target } from '../target.js'

/** JSON-RPC's code for a failure of the server side (here: reaching it). */
const SERVER_ERROR = -32000

/**
 * folio mcp: a relay between stdio and the server's POST /api/mcp. The tools are the server's
 * own (its mode, its version), so nothing here can drift from them; the relay only adds the key
 * (target.ts: the server and key every command uses) and turns a server it cannot reach into an
 * error answer for the request, so the agent hears why instead of waiting.
 */
export default async (_options: unknown, command: Command): Promise<void> => {
  const target = await targetHere(command.optsWithGlobals<GlobalOptions>())
  const upstream = new StreamableHTTPClientTransport(new URL(`${target.server}${mcp.path}`), {
    requestInit: target.key ? { headers: { authorization: `Bearer ${target.key}` } } : {},
  })
  const local = new StdioServerTransport()
  const initializeIds = new Set<string | number>()
  // Requests on their way: a client that writes and closes stdin (a pipe) still gets the answers.
  const inFlight = new Set<Promise<void>>()

  local.onmessage = (message) => {
    if ('method' in message && message.method === 'initialize' && 'id' in message) initializeIds.add(message.id)
    const relay = upstream.send(message).catch(async (error: unknown) => {
      if (!('method' in message && 'id' in message)) return logger().warn(`mcp: ${describe(error, target)}`)
      await local.send({ jsonrpc: '2.0', id: message.id, error: { code: SERVER_ERROR, message: describe(error, target) } })
    })
    inFlight.add(relay)
    void relay.finally(() => inFlight.delete(relay))
  }
  upstream.onmessage = (message: JSONRPCMessage) => {
    // The server answered initialize: later requests name the version agreed on (MCP-Protocol-Version).
    if (
      'id' in message &&
      message.id !== undefined &&
      initializeIds.delete(message.id) &&
      'result' in message &&
      typeof message.result.protocolVersion === 'string'
    ) {
      upstream.setProtocolVersion(message.result.protocolVersion)
    }
    void local.send(message)
  }
  upstream.onerror = (error) => logger().debug(`mcp: ${error.message}`)

  await upstream.start()
  await local.start()
  // Until the agent closes our stdin (or the transport closes).
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve)
    local.onclose = resolve
  })
  await Promise.allSettled(inFlight)
  await upstream.close()
  await local.close()
}

function describe(error: unknown, target: Target): string {
  if (error instanceof StreamableHTTPError && error.code === 401) {
    const key = target.keyLabel ? `the key from ${target.keyLabel} was refused` : 'it needs a key: folio login, FOLIO_API_KEY or --key'
    return `Unauthorized: ${target.server} said 401 (${key}).`
  }
  if (error instanceof StreamableHTTPError) return `${target.server}${mcp.path} answered ${error.code}: ${error.message}`
  return `Cannot reach folio at ${target.server} (${(error as Error).message}): start it with folio serve, or point --server / FOLIO_URL at it.`
}
