import { beforeAll, describe, expect, it } from 'vitest'
import { getOpenApi } from '../src/api/design-systems.js'
import { mcp } from '../src/api/mcp.js'
import { MCP_TOOLS } from '../src/api/mcp-tools.js'
import { useServer } from './helpers/use-server.js'

/**
 * tools/list and GET /api/openapi are two renderings of the same contracts: each tool's
 * arguments are fields its operation takes, with the same descriptions, types, enums and
 * requirements. Both documents are read from a running server, as their users read them.
 */
type Schema = {
  $ref?: string
  type?: string
  description?: string
  enum?: unknown[]
  properties?: Record<string, Schema>
  required?: string[]
  default?: unknown
  [k: string]: unknown
}
interface ListedTool {
  name: string
  description: string
  inputSchema: Schema
}
const entryOf = (tool: ListedTool) => MCP_TOOLS.find((t) => t.name === tool.name)!

const s = useServer()
let doc: any
let tools: ListedTool[]

beforeAll(async () => {
  doc = (await s.api.send(getOpenApi)).body
  const reply = await fetch(new URL(mcp.path, s.ts.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  tools = (await reply.json()).result.tools
})

/** A schema with its $ref followed (a described reference is {description, allOf: [{$ref}]} in OpenAPI 3.0). */
function resolve(schema: Schema): Schema {
  if (schema.$ref) return resolve(doc.components.schemas[schema.$ref.split('/').pop()!])
  const { allOf, ...rest } = schema
  if (Array.isArray(allOf) && allOf.length === 1) return { ...resolve(allOf[0] as Schema), ...rest }
  return schema
}

function operationOf(operationId: string): { operation: any } {
  for (const ops of Object.values(doc.paths as Record<string, Record<string, any>>)) {
    for (const operation of Object.values(ops)) if (operation.operationId === operationId) return { operation }
  }
  throw new Error(`no operation ${operationId}`)
}

/** What the operation takes, by name: its path, query and header parameters and its JSON body's fields. */
function fieldsOf(operation: any): Map<string, { schema: Schema; description?: string; required: boolean; where: string }> {
  const fields = new Map<string, { schema: Schema; description?: string; required: boolean; where: string }>()
  for (const p of operation.parameters ?? []) fields.set(p.name, { schema: resolve(p.schema), description: p.description, required: p.required, where: p.in })
  const body = operation.requestBody?.content?.['application/json']?.schema
  if (body) {
    const object = resolve(body)
    for (const [name, prop] of Object.entries(object.properties ?? {})) {
      const field = resolve(prop)
      fields.set(name, { schema: field, description: prop.description ?? field.description, required: (object.required ?? []).includes(name), where: 'body' })
    }
  }
  return fields
}

/** The tool's own fields for a raw body, and the header the endpoint reads them from. */
const RAW_FIELDS: Record<string, Record<string, string | undefined>> = { upload_image: { path: 'x-file-path', data: undefined } }

describe('MCP tools and OpenAPI come from the same contracts', () => {
  it('lists every tool of the table that the server’s mode offers, with its operation', () => {
    expect(tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name))
    for (const tool of tools) expect(() => operationOf(entryOf(tool).contract.operationId), tool.name).not.toThrow()
  })

  it('describes each tool in words of its own, short: an agent pays for them on every turn', async () => {
    const descriptions = new Set(tools.map((t) => t.description))
    expect(descriptions.size).toBe(tools.length)
    for (const tool of tools) expect(tool.description.length, tool.name).toBeLessThanOrEqual(260)
    const reply = await fetch(new URL(mcp.path, s.ts.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(Buffer.byteLength(await reply.text())).toBeLessThanOrEqual(12 * 1024)
  })

  it('takes only fields its operation takes, with the same description, type, enum and default', () => {
    let compared = 0
    for (const tool of tools) {
      const { operation } = operationOf(entryOf(tool).contract.operationId)
      const fields = fieldsOf(operation)
      const own = entryOf(tool).own
      expect(tool.inputSchema.type, tool.name).toBe('object')
      for (const [name, prop] of Object.entries(tool.inputSchema.properties ?? {})) {
        const raw = RAW_FIELDS[tool.name]
        const header = raw && name in raw ? raw[name] : undefined
        if ((raw && name in raw && header === undefined) || own.fields.includes(name)) continue // a field of the tool's own (base64 bytes, a file path)
        const field = fields.get(header ?? name)
        expect(field, `${tool.name}.${name} is a field of ${operation.operationId}`).toBeDefined()
        // A tool may say it shorter, for an agent; never leave it unsaid.
        if (own.described.includes(name)) expect(prop.description, `${tool.name}.${name} description`).toBeTruthy()
        else expect(prop.description, `${tool.name}.${name} description`).toBe(field!.description ?? field!.schema.description)
        if (header) continue
        expect(prop.type, `${tool.name}.${name} type`).toEqual(field!.schema.type)
        expect(prop.enum, `${tool.name}.${name} enum`).toEqual(field!.schema.enum)
        if (!own.defaults.includes(name)) expect(prop.default, `${tool.name}.${name} default`).toEqual(field!.schema.default)
        compared++
      }
    }
    expect(compared).toBeGreaterThan(40)
  })

  it('requires what the operation requires, and path parameters', () => {
    for (const tool of tools) {
      const { operation } = operationOf(entryOf(tool).contract.operationId)
      const required = tool.inputSchema.required ?? []
      for (const [name, field] of fieldsOf(operation)) {
        if (field.required && name in (tool.inputSchema.properties ?? {})) expect(required, `${tool.name} requires ${name}`).toContain(name)
        if (field.where === 'path') expect(required, `${tool.name} requires ${name}`).toContain(name)
      }
    }
    // Where a tool is narrower than its endpoint, it says so: restore_version needs the version.
    expect(tools.find((t) => t.name === 'restore_version')!.inputSchema.required).toEqual(['id', 'restoreVersionId'])
  })
})
