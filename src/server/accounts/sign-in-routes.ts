import type { H3, H3Event } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { currentSession, listSessions, requestSignInCode, revokeSession, signIn, signOut } from '../../api/sign-in.js'
import { managesWorkspace } from '../../domain/principal.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { mountRoute, type RouteDeps } from '../route.js'
import { sessionCookie } from './sign-in.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type SignInRoutesDeps = RouteDeps & Pick<ServerContext, 'cloud'>

const secure = (event: H3Event) => event.url.protocol === 'https:'
const headersOf = (event: H3Event) => ({
  cookie: event.req.headers.get('cookie'),
  origin: event.req.headers.get('origin'),
  host: event.req.headers.get('host'),
  method: event.req.method,
})

/** People signing in to the dashboard (Cloud): codes, sessions, sign-out, the Owner's list. */
export function registerSignInRoutes(app: H3, ctx: SignInRoutesDeps): void {
  const cloud = () => ctx.cloud!

  mountRoute(app, ctx, requestSignInCode, async ({ body }) => {
    await cloud().signIn.sendCode(body.email)
    return { success: true }
  })

  mountRoute(app, ctx, signIn, async ({ event, body }) => {
    const userAgent = event.req.headers.get('user-agent') ?? undefined
    const started = 'apiKey' in body ? await cloud().signIn.withKey(body.apiKey, userAgent) : await cloud().signIn.withCode(body, userAgent)
    event.res.headers.set('cache-control', 'no-store')
    event.res.headers.append('set-cookie', sessionCookie(started.token, secure(event)))
    return { success: true, session: started.session }
  })

  mountRoute(app, ctx, currentSession, ({ event }) => {
    const { credentials, signIn: people } = cloud()
    const session = credentials.sessionOf(headersOf(event))
    const expiresAt = session && credentials.sessions.expiryOf(session.hash)
    if (!session || !expiresAt) throw fail(ERRORS.unauthorized, 'Not signed in: POST /api/auth/code, then /api/auth/signin.')
    event.res.headers.set('cache-control', 'no-store')
    return { success: true, session: people.describe(session, expiresAt) }
  })

  mountRoute(app, ctx, signOut, async ({ event }) => {
    const session = cloud().credentials.sessionOf(headersOf(event))
    if (session) await cloud().signIn.end(session.hash)
    event.res.headers.append('set-cookie', sessionCookie('', secure(event), 0))
    return { success: true }
  })

  mountRoute(app, ctx, listSessions, async ({ event, principal }) => {
    if (!managesWorkspace(principal)) throw fail(ERRORS.forbidden, 'Only the Owner or an Admin sees the workspace’s sessions.')
    event.res.headers.set('cache-control', 'no-store')
    const sessions = await cloud().signIn.list(principal!.workspaceId)
    return { sessions: sessions.map((s) => ({ ...s.shown, current: principal!.via === 'session' && principal!.credentialId === s.session.id })) }
  })

  mountRoute(app, ctx, revokeSession, async ({ params, principal }) => {
    const found = (await cloud().signIn.list(principal!.workspaceId)).find((s) => s.session.id === params.sessionId)
    if (!found) throw fail(ERRORS.sessionNotFound)
    const own = principal!.via === 'session' && principal!.credentialId === found.session.id
    if (!own && !managesWorkspace(principal)) throw fail(ERRORS.forbidden, 'Only the Owner or an Admin ends other people’s sessions.')
    await cloud().signIn.end(found.hash)
    return { success: true }
  })
}
