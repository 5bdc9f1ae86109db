import { tool, type ToolSet } from 'ai'
import { z } from 'zod'
import { type WebFetchOptions, WebFetchRefused, urlsIn, webFetch } from './web-fetch.js'

/** A tool call as the API reports it (spec: Tool call object). */
export interface ToolCallReport {
  id: string
  name: string
  arguments: Record<string, unknown>
  /** done, error, or pending (a client-side tool waiting for the tool-response action). */
  status: 'done' | 'error' | 'pending'
  /** Extension: a short account of what the tool returned or why it failed. */
  result?: string
}

export interface FolioToolsInput {
  /** Every file of the version the conversation is about. */
  files: Record<string, string>
  /** Text the user wrote (request and history): web_fetch opens only addresses found there. */
  userText: string
  /** How web_fetch reaches the web: the server's outbound guard, public addresses only. */
  fetch: WebFetchOptions['fetch']
}

/** The client-side tool: the model asks, the user answers through the tool-response action. */
export const CLIENT_TOOLS = ['ask_user'] as const

/**
 * The tools a model may call while it co-authors a folio: read the folio's own files, fetch a
 * page the user named, or ask the user. Failures go back to the model as the tool's answer.
 */
export function folioTools(input: FolioToolsInput): ToolSet {
  const named = new Set(urlsIn(input.userText))
  return {
    list_files: tool({
      description: 'List the folio’s files with their sizes in characters.',
      inputSchema: z.object({}),
      execute: async () => Object.entries(input.files).map(([path, content]) => ({ path, chars: content.length })),
    }),
    read_file: tool({
      description: 'Read one of the folio’s files (the version being edited).',
      inputSchema: z.object({ path: z.string().describe('Path of the file, e.g. index.html') }),
      execute: async ({ path }) => {
        const content = input.files[path]
        if (content === undefined) throw new Error(`The folio has no file ${path}.`)
        return content.startsWith('data:') ? '(binary file)' : content.slice(0, 120_000)
      },
    }),
    web_fetch: tool({
      description: 'Fetch a web page the user named in the conversation (http or https), as text.',
      inputSchema: z.object({ url: z.string().describe('The address, exactly as the user wrote it') }),
      execute: async ({ url }, { abortSignal }) => {
        if (!named.has(url)) throw new WebFetchRefused(`Only addresses the user wrote can be fetched; ${url} is not one of them.`)
        const page = await webFetch(url, { fetch: input.fetch, signal: abortSignal })
        return { url: page.url, status: page.status, contentType: page.contentType, truncated: page.truncated, text: page.text }
      },
    }),
    ask_user: tool({
      description: 'Ask the user a question when the request is ambiguous; the answer comes back as this tool’s result.',
      inputSchema: z.object({ question: z.string(), choices: z.array(z.string()).optional() }),
      // No execute: the generation stops here, and the client answers with action tool-response.
    }),
  }
}

/** A tool's result, shortened for the report. */
export function summarise(output: unknown): string {
  const text = typeof output === 'string' ? output : JSON.stringify(output)
  return text.length > 500 ? `${text.slice(0, 500)}…` : text
}
