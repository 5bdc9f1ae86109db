import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description("folio's MCP tools over stdio, for AI agents that launch local processes")
    .addHelpText(
      'after',
      `
Relays the Model Context Protocol between stdin/stdout and the server's POST /api/mcp: the
same tools (create, publish, comments, the brief, …) with the server and key every command
uses (--server, FOLIO_URL, folio login; --key, FOLIO_API_KEY). stdout carries only MCP.

Examples:
  $ claude mcp add folio -- folio mcp                       Claude Code, the local server
  $ claude mcp add folio -- folio mcp --server https://folio.example.com
  $ claude mcp add --transport http folio http://127.0.0.1:3000/api/mcp   no process at all
Other clients: command "folio", args ["mcp"] in their MCP server settings.`,
    )
    .action(lazyAction(() => import('../actions/mcp.js')))
}
