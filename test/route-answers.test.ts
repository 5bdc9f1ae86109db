import type { H3 } from 'h3'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { currentSession } from '../src/api/sign-in.js'
import { deleteFolio, type getFolio } from '../src/api/files.js'
import { folioEvents } from '../src/api/sharing.js'
import type { ResponseInputOf } from '../src/api/contract.js'
import type { ServerContext } from '../src/server/context.js'
import { mountRoute, type RouteHandler } from '../src/server/route.js'

/*
 * A handler's answer is typed by its contract's response schema (src/server/route.ts,
 * RouteAnswer): tsc, which checks this file, refuses a shape the schema does not allow. The
 * @ts-expect-error lines below fail the type check the day a wrong shape compiles again.
 */

/** Never called: only compiled. */
function wrongShapes(app: H3, ctx: ServerContext) {
  // @ts-expect-error success is the literal true
  mountRoute(app, ctx, deleteFolio, () => ({ success: false }))
  // @ts-expect-error the answer must hold the schema's required fields (session)
  mountRoute(app, ctx, currentSession, async () => ({ success: true as const }))
  // @ts-expect-error GET /api/files/{id} answers the Folio itself, not {project}
  const handler: RouteHandler<typeof getFolio> = () => ({ project: 'x' })
  // @ts-expect-error an event stream endpoint answers a Response, not a JSON value
  mountRoute(app, ctx, folioEvents, () => ({ success: true }))
  return handler
}

/** Never called: the legitimate forms compile. */
function rightShapes(app: H3, ctx: ServerContext) {
  mountRoute(app, ctx, deleteFolio, async () => ({ success: true }))
  mountRoute(app, ctx, deleteFolio, () => new Response(null, { status: 200 }))
  mountRoute(app, ctx, folioEvents, () => new Response(new ReadableStream(), { headers: { 'content-type': 'text/event-stream' } }))
}

describe('handlers answer what their contract says (tsc)', () => {
  it('types the answer by the schema’s input side', () => {
    expectTypeOf<ResponseInputOf<typeof deleteFolio>>().toEqualTypeOf<{ success: true }>()
    expectTypeOf<ReturnType<RouteHandler<typeof deleteFolio>>>().toExtend<{ success: true } | Response | Uint8Array | Promise<unknown>>()
    expect([wrongShapes, rightShapes].every((f) => typeof f === 'function')).toBe(true)
  })
})
