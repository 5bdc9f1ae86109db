import type { H3, H3Event } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { getKey, revokeKey, rotateKey } from '../../api/keys.js'
import { managesWorkspace } from '../../domain/principal.js'
import { bearerToken, type Principal } from './auth.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { mountRoute, type RouteDeps } from '../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type KeyRoutesDeps = RouteDeps & Pick<ServerContext, 'keys' | 'store'>

const ownerOrAdmin = (principal: Principal | undefined) => {
  if (!managesWorkspace(principal)) throw fail(ERRORS.forbidden, 'Only the Owner or an Admin may change the key.')
}

const fromEnvironment = () => fail(ERRORS.keyFromEnvironment, 'This server takes its key from FOLIO_API_KEY: change the environment and restart to rotate it.')

/** GET/POST/DELETE /api/keys: show, rotate, revoke the workspace's one key. */
export function registerKeyRoutes(app: H3, ctx: KeyRoutesDeps): void {
  if (ctx.config.mode === 'cloud') return registerCloudKeyRoutes(app, ctx)

  mountRoute(app, ctx, getKey, ({ event, principal }) => {
    // An application authorized with OAuth works with folios; it is never handed the key.
    if (principal?.via === 'oauth') throw fail(ERRORS.forbidden, 'An OAuth token cannot read the API key.')
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

/**
 * Cloud: each workspace has one key, stored only as its hash. GET can only echo the key the
 * caller authenticated with; anyone signed in otherwise rotates to see a new one.
 */
function registerCloudKeyRoutes(app: H3, ctx: KeyRoutesDeps): void {
  const workspaces = ctx.store.workspaces
  mountRoute(app, ctx, getKey, ({ event, principal }) => {
    if (principal?.via !== 'api-key') {
      throw fail(ERRORS.noApiKey, 'The key is shown once and stored only as a hash: an Owner or Admin rotates it (POST /api/keys) to get a new one.')
    }
    event.res.headers.set('cache-control', 'no-store')
    return { apiKey: bearerToken(requestAuthorization(event))! }
  })

  mountRoute(app, ctx, rotateKey, async ({ event, principal }) => {
    ownerOrAdmin(principal)
    event.res.headers.set('cache-control', 'no-store')
    return { apiKey: await workspaces.rotateKey(principal!.workspaceId) }
  })

  mountRoute(app, ctx, revokeKey, async ({ principal }) => {
    ownerOrAdmin(principal)
    await workspaces.revokeKey(principal!.workspaceId)
    return { success: true }
  })
}

const requestAuthorization = (event: H3Event) => event.req.headers.get('authorization')
