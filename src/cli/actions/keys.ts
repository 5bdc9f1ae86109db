import type { Command } from 'commander'
import { getKey, revokeKey, rotateKey } from '../../api/keys.js'
import { withContext } from '../context.js'

export default (action: 'show' | 'rotate' | 'revoke', _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    if (action === 'revoke') {
      await ctx.client.call(revokeKey)
      ctx.print({ success: true }, () => 'Revoked: no key works until you run folio keys rotate.')
      return
    }
    const { apiKey } = await ctx.client.call(action === 'rotate' ? rotateKey : getKey)
    ctx.print({ apiKey }, () => (action === 'rotate' ? `New key (the old one no longer works):\n${apiKey}` : apiKey))
  })
