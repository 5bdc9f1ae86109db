import type { H3 } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { getKey, revokeKey, rotateKey } from '../../api/keys.js'
import type { Principal } from '../auth.js'
import type { ServerContext } from '../context.js'
import { fail } from '../errors.js'
import { mountRoute } from '../route.js'

const ownerOrAdmin = (principal: Principal | undefined) => {
  if (principal?.role !== 'owner' && principal?.role !== 'admin') throw fail(ERRORS.forbidden, 'Only the Owner or an Admin may change the key.')
}

const fromEnvironment = () =>
  fail(ERRORS.keyFromEnvironment, 'This server takes its key from FOLIO_API_KEY: change the environment and restart to rotate it.')

/** GET/POST/DELETE /api/keys: show, rotate, revoke the workspace's one key. */
export function registerKeyRoutes(app: H3, ctx: ServerContext): void {
  mountRoute(app, ctx, getKey, ({ event }) => {
    const apiKey = ctx.keys.current()
    if (!apiKey) throw fail(ERRORS.noApiKey, 'No key is active: make one with POST /api/keys (folio keys rotate).')
    event.res.headers.set('cache-control', 'no-store')
    return { apiKey }
  })

  mountRoute(app, ctx, rotateKey, async ({ event, principal }) => {
    ownerOrAdmin(principal)
    if (ctx.keys.fromEnvironment) throw fromEnvironment()
    event.res.headers.set('cache-control', 'no-store')
    return { apiKey: await ctx.keys.rotate() }
  })

  mountRoute(app, ctx, revokeKey, async ({ principal }) => {
    ownerOrAdmin(principal)
    if (ctx.keys.fromEnvironment) throw fromEnvironment()
    await ctx.keys.revoke()
    return { success: true }
  })
}
