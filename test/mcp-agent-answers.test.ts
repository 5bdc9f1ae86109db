import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment } from '../src/api/engagement.js'
import { updateFolio } from '../src/api/files.js'
import { mcp } from '../src/api/mcp.js'
import { MAX_TOOL_ANSWER_BYTES } from '../src/server/mcp/mcp-server.js'
import type { TestApi } from './helpers/api.js'
import { cliEnv } from './helpers/cli.js'
import { BIN } from './helpers/cli-process.js'
import { dataOf, textOf } from './helpers/mcp-answers.js'
import { useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'

/**
 * What an agent reads: answers sized for a context window, the owner's own folios through every
 * tool, and a feedback call to loop on. The SDK's own client, over HTTP and over stdio
 * (`folio mcp`), in OSS and in Cloud.
 */
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult
const bytesOf = (result: CallToolResult) => Buffer.byteLength(JSON.stringify(result))

async function overHttp(base: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'folio-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.path, base), key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {}))
  return client
}

async function overStdio(base: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'folio-test', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: cliEnv({ FOLIO_URL: base, ...(key ? { FOLIO_API_KEY: key } : {}) }) as Record<string, string>,
      stderr: 'pipe',
    }),
  )
  return client
}

/** A page of about 1 MB, different in each version (as a deck with its images inlined is). */
const megabytePage = (n: number) =>
  `<!doctype html><h1 id="title">Version ${n}</h1><section class="slide"><p id="point">Point</p></section>\n${`<p>${String(n).repeat(60)}</p>\n`.repeat(16_000)}`

async function eightVersions(api: TestApi): Promise<string> {
  const id = await api.create('Heavy deck', { 'index.html': megabytePage(1), 'notes.md': 'line one\nline two\nline three\nline four' }, { status: 'published' })
  for (let n = 2; n <= 8; n++)
    await api.send(updateFolio, { params: { id }, body: { files: { 'index.html': megabytePage(n), 'notes.md': 'line one\nline two\nline three\nline four' } } })
  return id
}

for (const mode of ['oss', 'cloud'] as const) {
  describe(`MCP answers sized for a model (${mode})`, () => {
    const s = mode === 'oss' ? useServer() : useCloudServer()
    const api = () => (mode === 'oss' ? (s as ReturnType<typeof useServer>).api : (s as ReturnType<typeof useCloudServer>).workspace.api)
    const key = () => (mode === 'oss' ? undefined : (s as ReturnType<typeof useCloudServer>).workspace.apiKey)
    let id: string
    beforeAll(async () => {
      id = await eightVersions(api())
    }, 120_000)

    for (const transport of ['HTTP', 'stdio'] as const) {
      describe(`over ${transport}`, () => {
        let client: Client
        beforeAll(async () => {
          client = transport === 'HTTP' ? await overHttp(s.ts.url, key()) : await overStdio(s.ts.url, key())
        })
        afterAll(() => client?.close())

        it('lists its tools in at most 12 KB, each with a description of its own', async () => {
          const { tools } = await client.listTools()
          expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThanOrEqual(12 * 1024)
          expect(new Set(tools.map((t) => t.description)).size).toBe(tools.length)
          expect(tools.find((t) => t.name === 'get_folio')!.annotations).toMatchObject({ readOnlyHint: true })
          expect(tools.find((t) => t.name === 'delete_folio')!.annotations).toMatchObject({ destructiveHint: true })
        })

        it('answers get_folio of 8 versions of 1 MB with metadata and paths, far under 256 KB; read_file gives one file', async () => {
          const folio = await call(client, 'get_folio', { id })
          expect(bytesOf(folio)).toBeLessThanOrEqual(MAX_TOOL_ANSWER_BYTES)
          const data = dataOf(folio)
          expect(data.versions).toHaveLength(8)
          expect(data.versions.at(-1)).toMatchObject({ versionId: 'v8', fileList: ['index.html', 'notes.md'] })
          expect(data.versions.every((v: { files?: unknown }) => v.files === undefined)).toBe(true)

          const notes = await call(client, 'read_file', { id, path: 'notes.md', fromLine: 2, toLine: 3 })
          expect(textOf(notes)).toBe('notes.md of v8, lines 2–3 of 4:\nline two\nline three')
          const missing = await call(client, 'read_file', { id, path: 'nope.css' })
          expect(textOf(missing)).toBe('The latest version (v8) has no nope.css; its files: index.html, notes.md.')
        })

        it('cuts an answer past 256 KB and says how to get the rest', async () => {
          const everything = await call(client, 'get_folio', { id, files: 'all' })
          const text = textOf(everything)
          expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_TOOL_ANSWER_BYTES)
          expect(text).toMatch(/\[Cut: this answer is [\d,]+ bytes, over the 256 KB a tool answer holds\. .*read_file.*\]$/)
          const page = await call(client, 'read_file', { id, path: 'index.html' })
          expect(textOf(page)).toMatch(/\[Cut: /)
          expect(textOf(await call(client, 'read_file', { id, path: 'index.html', toLine: 2 }))).toBe(
            'index.html of v8, lines 1–2 of 16002:\n<!doctype html><h1 id="title">Version 8</h1><section class="slide"><p id="point">Point</p></section>\n<p>888888888888888888888888888888888888888888888888888888888888</p>',
          )
        })
      })
    }

    it('lets the owner comment on, and list the comments of, a draft and a private folio', async () => {
      const client = await overHttp(s.ts.url, key())
      try {
        const draft = await api().create('Draft with notes', { 'index.html': '<h1>Draft</h1>' })
        const secret = await api().create('Board pack', { 'index.html': '<h1>Numbers</h1>' }, { status: 'published' })
        await api().send(updateFolio, { params: { id: secret }, body: { isPrivate: true, accessKey: 'a-long-access-key-1' } })
        for (const folio of [draft, secret]) {
          // The owner's agent comments there too (a viewer could not: the draft is unpublished, the folio private).
          const added = await call(client, 'add_comment', { id: folio, text: `Note on ${folio}`, versionId: 'v1', filename: 'index.html' })
          expect(added.isError, textOf(added)).toBeFalsy()
          const listed = await call(client, 'list_comments', { id: folio })
          expect(listed.isError, textOf(listed)).toBeFalsy()
          expect(dataOf(listed).map((c: { text: string }) => c.text)).toEqual([`Note on ${folio}`])
        }
      } finally {
        await client.close()
      }
    })

    it('reports the feedback since a version: a comment on a later version, with its slide and element', async () => {
      const client = await overHttp(s.ts.url, key())
      try {
        const before = await api().send(createComment, { params: { id }, body: { text: 'Old remark', versionId: 'v1', filename: 'index.html' } })
        expect(before.status).toBe(200)
        // Since v8 everything here is new; since a time between, the old remark is only active.
        await new Promise((resolve) => setTimeout(resolve, 5))
        const between = new Date().toISOString()
        await new Promise((resolve) => setTimeout(resolve, 5))
        const pinned = await api().send(createComment, {
          params: { id },
          body: {
            text: 'Bigger point',
            versionId: 'v8',
            filename: 'index.html',
            selector: '#point',
            elementHtml: '<p id="point">Point</p>',
            anchor: { selector: '#point', offsetX: 50, offsetY: 50, slide: 1 },
          },
        })
        await api().send(createComment, {
          params: { id },
          body: { text: 'Still true', versionId: 'v8', filename: 'index.html', parentId: before.body.comment.id },
        })
        const sinceV8 = dataOf(await call(client, 'get_feedback', { id, since: 'v8' }))
        expect(sinceV8.new.map((c: { text: string }) => c.text)).toEqual(expect.arrayContaining(['Old remark', 'Bigger point']))
        expect(sinceV8.new.find((c: { id: string }) => c.id === pinned.body.comment.id)).toMatchObject({
          slide: 1,
          selector: '#point',
          elementHtml: '<p id="point">Point</p>',
          versionId: 'v8',
        })
        const feedback = await call(client, 'get_feedback', { id, since: between })
        const report = dataOf(feedback)
        expect(report.new.map((c: { text: string }) => c.text)).toEqual(['Bigger point'])
        expect(report.active.map((c: { text: string; replies: Array<{ text: string }> }) => [c.text, c.replies.map((r) => r.text)])).toEqual([
          ['Old remark', ['Still true']],
        ])
        expect(report).toMatchObject({ since: between, views: expect.any(Number), reactions: expect.any(Object) })
        expect(textOf(feedback)).toMatch(new RegExp(`^Since ${between}: 1 new thread, 1 thread with new replies, 0 resolved threads; \\d+ open in all\\.`))
        expect(textOf(await call(client, 'get_feedback', { id, since: 'yesterday-ish' }))).toMatch(
          /^since: yesterday-ish is neither a version of this folio \(v1, .*v8\) nor an ISO time\./,
        )
      } finally {
        await client.close()
      }
    })
  })
}
