import type { Command } from 'commander'
import { listOAuthGrants, revokeOAuthGrant } from '../../api/oauth.js'
import { ago, table } from '../../terminal/format.js'
import { withContext } from '../context.js'
import { UsageError } from '../errors.js'

export default (action: 'list' | 'revoke', grantId: string | undefined, _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    if (action === 'revoke') {
      if (!grantId) throw new UsageError('folio oauth revoke needs the grant’s id (folio oauth lists them).')
      await ctx.client.call(revokeOAuthGrant, { params: { grantId } })
      ctx.print({ success: true, grantId }, () => `Revoked ${grantId}: its tokens no longer work.`)
      return
    }
    const { grants } = await ctx.client.call(listOAuthGrants)
    ctx.print(grants, () =>
      grants.length
        ? table(
            ['ID', 'CLIENT', 'APPROVED BY', 'ROLE', 'SINCE'],
            grants.map((g) => [g.id, g.clientName, g.approvedBy ?? 'key holder', g.role, ago(g.createdAt)]),
          )
        : 'No OAuth client is authorized.',
    )
  })
