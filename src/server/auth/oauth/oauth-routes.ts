import type { H3, H3Event } from 'h3'
import { ERRORS } from '../../../api/errors.js'
import {
  authorizationServerMetadata,
  listOAuthGrants,
  mcpResourceMetadata,
  oauthToken,
  protectedResourceMetadata,
  registerOAuthClient,
  revokeOAuthGrant,
  revokeOAuthToken,
} from '../../../api/oauth.js'
import { managesWorkspace } from '../../../domain/principal.js'
import type { ServerContext } from '../../context.js'
import { fail } from '../../http/errors.js'
import { asOAuthError, oauthJson, readForm, readJson } from './oauth-http.js'
import * as metadata from './oauth-metadata.js'
import { applyRateLimit, mountRoute, type RouteDeps } from '../../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type OauthRoutesDeps = RouteDeps & Pick<ServerContext, 'oauth'>

/** Discovery documents are public and the same for everyone: browser-based clients read them too. */
const discovery = (event: H3Event) => {
  event.res.headers.set('access-control-allow-origin', '*')
  event.res.headers.set('cache-control', 'public, max-age=300')
}

/** Discovery, registration, token, revocation, and the owner's grants (the consent page: oauth-consent.ts). */
export function registerOAuthRoutes(app: H3, ctx: OauthRoutesDeps): void {
  const { clients, grants } = ctx.oauth
  const origin = (event: H3Event) => metadata.publicOrigin(ctx, event)

  mountRoute(app, ctx, protectedResourceMetadata, ({ event }) => {
    discovery(event)
    return metadata.protectedResourceMetadata(origin(event), origin(event))
  })
  mountRoute(app, ctx, mcpResourceMetadata, ({ event }) => {
    discovery(event)
    return metadata.protectedResourceMetadata(origin(event), `${origin(event)}${metadata.MCP_PATH}`)
  })
  mountRoute(app, ctx, authorizationServerMetadata, ({ event }) => {
    discovery(event)
    return metadata.authorizationServerMetadata(origin(event))
  })

  const oauthPost = (path: string, handler: (event: H3Event) => Promise<Response>) =>
    app.post(path, async (event) => {
      try {
        await applyRateLimit(ctx, event, 'auth')
        return await handler(event)
      } catch (error) {
        return asOAuthError(error)
      }
    })

  // RFC 7591: 201 with the metadata as registered (oauth4webapi wants exactly 201).
  oauthPost(registerOAuthClient.path, async (event) => oauthJson(await clients.register(await readJson(event)), 201))

  oauthPost(oauthToken.path, async (event) => {
    const form = await readForm(event)
    const client = await clients.authenticate(event.req.headers.get('authorization'), form)
    const resource = form.get('resource')
    if (resource !== null && !metadata.isOwnResource(origin(event), resource))
      throw fail(ERRORS.oauthInvalidTarget, `resource must be ${origin(event)} or ${origin(event)}${metadata.MCP_PATH}.`)
    const grantType = form.get('grant_type')
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
      throw fail(ERRORS.oauthUnsupportedGrantType, 'grant_type must be authorization_code or refresh_token.')
    if (!client.grantTypes.includes(grantType)) throw fail(ERRORS.oauthUnauthorizedClient, `This client did not register the ${grantType} grant.`)
    if (grantType === 'authorization_code') {
      const code = form.get('code')
      if (!code) throw fail(ERRORS.oauthInvalidRequest, 'code is required.')
      return oauthJson(await grants.exchangeCode(client.id, code, form.get('code_verifier') ?? undefined, form.get('redirect_uri') ?? undefined))
    }
    const refreshToken = form.get('refresh_token')
    if (!refreshToken) throw fail(ERRORS.oauthInvalidRequest, 'refresh_token is required.')
    return oauthJson(await grants.refresh(client.id, refreshToken))
  })

  // RFC 7009: 200 with an empty body, known token or not.
  oauthPost(revokeOAuthToken.path, async (event) => {
    const form = await readForm(event)
    const client = await clients.authenticate(event.req.headers.get('authorization'), form)
    const token = form.get('token')
    if (!token) throw fail(ERRORS.oauthInvalidRequest, 'token is required.')
    await grants.revokeToken(client.id, token)
    return new Response(null, { status: 200, headers: { 'cache-control': 'no-store' } })
  })

  mountRoute(app, ctx, listOAuthGrants, async ({ event, principal }) => {
    // An OAuth token sees its own grant (to revoke itself); the Owner and Admins see them all.
    const viaToken = principal?.via === 'oauth'
    if (!viaToken && !managesWorkspace(principal)) throw fail(ERRORS.forbidden, 'Only the Owner or an Admin sees what the workspace authorized.')
    event.res.headers.set('cache-control', 'no-store')
    const shown = (await grants.list(principal!.workspaceId)).filter((g) => !viaToken || g.id === principal!.credentialId)
    return {
      grants: shown.map((g) => ({
        id: g.id,
        clientId: g.clientId,
        clientName: g.clientName,
        approvedBy: g.email ?? null,
        role: grants.roleOf(g)!,
        scope: g.scope,
        createdAt: g.createdAt,
        current: principal!.via === 'oauth' && principal!.credentialId === g.id,
      })),
    }
  })

  mountRoute(app, ctx, revokeOAuthGrant, async ({ params, principal }) => {
    const grant = (await grants.list(principal!.workspaceId)).find((g) => g.id === params.grantId)
    if (!grant) throw fail(ERRORS.grantNotFound)
    const own = principal!.via === 'oauth' && principal!.credentialId === grant.id
    if (!own && !managesWorkspace(principal)) throw fail(ERRORS.forbidden, 'Only the Owner or an Admin revokes what the workspace authorized.')
    await grants.revoke(grant.id)
    return { success: true }
  })
}
