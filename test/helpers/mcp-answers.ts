import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

/** All the text a tool answered (the agent reads this). */
export const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')

/**
 * The data of a tool's answer: the JSON after the sentence for people (server/mcp/mcp-server.ts puts
 * it there once; there is no structuredContent, as no tool declares an outputSchema).
 */
export function dataOf(result: CallToolResult): any {
  const text = textOf(result)
  const start = text.indexOf('\n\n')
  if (result.isError || start === -1) throw new Error(`No data in the answer: ${text.slice(0, 300)}`)
  return JSON.parse(text.slice(start + 2))
}
