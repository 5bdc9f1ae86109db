import type { H3, H3Event } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { AdminError, createWorkspace, listWorkspaces, members, plans, replacePlans, setPlan, usage } from './admin-operations.js'
import { secretsEqual } from '../auth/auth-secrets.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { readJsonObject } from '../http/body.js'
import { fromThisMachine, nodeRequest } from '../http/remote.js'

/** What this file takes from the server's context. */
export type AdminRoutesDeps = Pick<ServerContext, 'config' | 'shared' | 'store'>

/** The header the operator's CLI sends the token of <data>/admin.json in. */
export const ADMIN_TOKEN_HEADER = 'x-folio-admin-token'

/**
 * The operator's API of a running Cloud server (folio admin): only from this machine (a loopback
 * peer on the main listener, never through the tunnel or a proxy) and only with the token the
 * server wrote to <data>/admin.json (0600) at start. Not part of the public API: no contract, not
 * in the OpenAPI document; anything else gets the 404 an unknown route gets.
 */
export function registerAdminRoutes(app: H3, ctx: AdminRoutesDeps, token: string): void {
  const deps = { store: ctx.store, shared: ctx.shared }
  const guard = (event: H3Event) => {
    const given = event.req.headers.get(ADMIN_TOKEN_HEADER)
    if (!fromThisMachine(nodeRequest(event), ctx.config.trustProxy) || !given || !secretsEqual(given, token)) throw fail(ERRORS.notFound)
  }
  const body = (event: H3Event) => readJsonObject(event, { limit: 64 * 1024, expandedLimit: 64 * 1024, tooLarge: ERRORS.payloadTooLarge })
  const run = (handler: (event: H3Event) => unknown) => async (event: H3Event) => {
    guard(event)
    event.res.headers.set('cache-control', 'no-store')
    try {
      return await handler(event)
    } catch (error) {
      if (error instanceof AdminError) throw fail(error.kind === 'not_found' ? ERRORS.notFound : ERRORS.badRequest, error.message)
      throw error
    }
  }
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined)

  app.on(
    'GET',
    '/_admin/workspaces',
    run(() => listWorkspaces(deps)),
  )
  app.on(
    'POST',
    '/_admin/workspaces',
    run(async (event) => {
      const input = await body(event)
      return createWorkspace(deps, { name: text(input.name) ?? '', plan: text(input.plan), ownerEmail: text(input.ownerEmail) })
    }),
  )
  app.on(
    'PUT',
    '/_admin/workspaces/:id/plan',
    run(async (event) => setPlan(deps, event.context.params!.id!, text((await body(event)).plan) ?? '')),
  )
  app.on(
    'GET',
    '/_admin/workspaces/:id/members',
    run((event) => members(deps, event.context.params!.id!)),
  )
  app.on(
    'GET',
    '/_admin/plans',
    run(() => plans(deps)),
  )
  app.on(
    'PUT',
    '/_admin/plans',
    run(async (event) => replacePlans(deps, await body(event))),
  )
  app.on(
    'GET',
    '/_admin/usage',
    run(() => usage(deps)),
  )
  app.on(
    'GET',
    '/_admin/usage/:id',
    run((event) => usage(deps, event.context.params!.id!)),
  )
}
