import { z } from 'zod'
import { ERRORS, when } from './errors.js'
import type { Contract } from './contract.js'
import { namedSchemas } from './schemas.js'

type JsonSchema = Record<string, unknown>
const ref = (id: string) => `#/components/schemas/${id}`
const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1)

/** OpenAPI 3.0 schema objects have no $id, $schema or $defs. */
function strip(schema: JsonSchema): JsonSchema {
  const { $id: _id, $schema: _schema, $defs: _defs, ...rest } = schema
  return rest
}

/**
 * Renders every schema the contracts use in one pass, so shared schemas become $refs to named
 * components. Request-side schemas are rendered as input (defaults optional), the rest as output.
 */
function renderSchemas(contracts: readonly Contract[]) {
  const registry = z.registry<{ id: string }>()
  const idOf = new Map<z.ZodType, string>()
  const inputIds = new Set<string>()
  const add = (schema: z.ZodType | undefined, fallbackId: string, input: boolean) => {
    if (!schema) return
    if (!idOf.has(schema)) {
      const id = namedSchemas.get(schema) ?? fallbackId
      idOf.set(schema, id)
      registry.add(schema, { id })
    }
    if (input) inputIds.add(idOf.get(schema)!)
  }
  for (const [schema, id] of namedSchemas) add(schema, id, false)
  for (const c of contracts) {
    const op = capital(c.operationId)
    add(c.params, `${op}Params`, true)
    add(c.query, `${op}Query`, true)
    add(c.body, `${op}Request`, true)
    add(c.rawBody?.schema, `${op}Request`, true)
    add(c.response.schema, `${op}Response`, false)
  }
  const render = (io: 'input' | 'output') =>
    (z.toJSONSchema(registry, { target: 'openapi-3.0', uri: ref, io, unrepresentable: 'any' }) as { schemas: Record<string, JsonSchema> }).schemas
  const asInput = render('input')
  const asOutput = render('output')
  const schemas: Record<string, JsonSchema> = {}
  for (const id of Object.keys(asOutput)) schemas[id] = strip((inputIds.has(id) ? asInput[id] : asOutput[id])!)
  return { schemas, idOf }
}

/** The OpenAPI 3.0 document, built from the same contracts that validate requests. */
export function buildOpenApi(contracts: readonly Contract[], info: { version: string; serverUrl?: string }): JsonSchema {
  const { schemas, idOf } = renderSchemas(contracts)
  const refTo = (schema: z.ZodType) => ({ $ref: ref(idOf.get(schema)!) })
  const parameterIds = new Set<string>()

  const parameters = (c: Contract): JsonSchema[] => {
    const list: JsonSchema[] = []
    for (const [where, shape] of [
      ['path', c.params],
      ['query', c.query],
    ] as const) {
      if (!shape) continue
      const id = idOf.get(shape)!
      parameterIds.add(id)
      const schema = schemas[id] as { properties?: Record<string, JsonSchema>; required?: string[] }
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        const { description, ...rest } = prop
        list.push({
          name,
          in: where,
          required: where === 'path' || (schema.required ?? []).includes(name),
          ...(description ? { description } : {}),
          schema: rest,
        })
      }
    }
    return list
  }

  const responses = (c: Contract): Record<string, JsonSchema> => {
    const { response } = c
    const out: Record<string, JsonSchema> = {
      [String(response.status)]: {
        description: response.description,
        ...(response.headers
          ? { headers: Object.fromEntries(Object.entries(response.headers).map(([h, v]) => [h, { schema: { type: 'string', example: v } }])) }
          : {}),
        content: { [response.contentType ?? 'application/json']: { schema: response.schema ? refTo(response.schema) : { type: 'object' } } },
      },
    }
    const byStatus = new Map<number, Contract['errors']>()
    // Any body may come too slowly (server/http/slow-body.ts).
    const errors = c.body || c.rawBody ? [...c.errors, ERRORS.requestTimeout] : [...c.errors]
    // Cloud counts every authenticated request against the workspace's plan (server/limits/plan-limits.ts).
    if (c.access !== 'public' && !errors.some((e) => e.status === 429))
      errors.push(when(ERRORS.tooManyRequests, 'Cloud: the workspace passed its plan’s requests per minute; retry after Retry-After seconds'))
    // The store's states, not the request's: any write may find the data dir's disk full
    // (server/http/errors.ts), any call but the health checks the database away.
    if (c.method !== 'GET') errors.push(ERRORS.insufficientStorage)
    if (c.tag !== 'Operations') errors.push(ERRORS.databaseUnavailable)
    for (const e of errors) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e])
    for (const [status, cases] of byStatus) {
      out[String(status)] = {
        description: cases.map((e) => `\`${e.error}\`: ${e.when}`).join('; '),
        content: {
          'application/json': {
            schema: { $ref: ref('Error') },
            examples: Object.fromEntries(cases.map((e, i) => [`e${i + 1}`, { summary: e.when, value: { error: e.error } }])),
          },
        },
      }
    }
    return out
  }

  const paths: Record<string, Record<string, JsonSchema>> = {}
  for (const c of contracts) {
    const operation: JsonSchema = {
      operationId: c.operationId,
      tags: [c.tag],
      summary: c.summary,
      ...(c.description ? { description: c.description } : {}),
      security: c.access === 'public' ? [] : [{ bearerAuth: [] }],
    }
    const params: JsonSchema[] = [
      ...parameters(c),
      ...Object.entries(c.headers ?? {}).map(([name, description]) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } })),
    ]
    if (params.length) operation.parameters = params
    if (c.body) operation.requestBody = { required: true, content: { 'application/json': { schema: refTo(c.body) } } }
    if (c.rawBody) {
      const schema = c.rawBody.schema ? refTo(c.rawBody.schema) : { type: 'string', format: 'binary' }
      operation.requestBody = { required: true, description: c.rawBody.description, content: { [c.rawBody.contentType]: { schema } } }
      for (const [name, description] of Object.entries(c.rawBody.headers ?? {})) {
        ;((operation.parameters ??= []) as JsonSchema[]).push({ name, in: 'header', required: true, description, schema: { type: 'string' } })
      }
    }
    operation.responses = responses(c)
    ;(paths[c.path] ??= {})[c.method.toLowerCase()] = operation
  }
  for (const id of parameterIds) delete schemas[id]

  return {
    openapi: '3.0.3',
    info: {
      title: 'folio',
      version: info.version,
      description:
        'Publish HTML folios (versioned bundles of HTML and assets) and collect comments, reactions and analytics. Every error is {"error": "<stable string>", "message": "<what to do>"}.',
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    tags: [...new Set(contracts.map((c) => c.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key (folio_live_…) or OAuth access token' } },
    },
  }
}
