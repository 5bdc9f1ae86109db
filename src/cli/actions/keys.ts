import type { Command } from 'commander'
import { getKey, revokeKey, rotateKey } from '../../api/keys.js'
import { ApiClientError } from '../../client/index.js'
import { withContext } from '../context.js'
import { CliError, EXIT } from '../errors.js'
import { replaceProfileKey } from '../profile.js'

export default (action: 'show' | 'rotate' | 'revoke', _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    if (action === 'revoke') {
      await ctx.client.call(revokeKey)
      const profile = await replaceProfileKey(ctx.server, undefined)
      ctx.print({ success: true, profileUpdated: Boolean(profile) }, () =>
        ['Revoked: no key works until you run folio keys rotate.', profile ? `The key saved in ${profile} was removed with it.` : '']
          .filter(Boolean)
          .join('\n'),
      )
      return
    }
    if (action === 'rotate') {
      const { apiKey } = await ctx.client.call(rotateKey)
      // The profile for this server would keep the dead key and every later command would fail.
      const profile = await replaceProfileKey(ctx.server, apiKey)
      ctx.print({ apiKey, profileUpdated: Boolean(profile) }, () =>
        [`New key (the old one no longer works):\n${apiKey}`, profile ? `Saved it in ${profile} in place of the old one.` : ''].filter(Boolean).join('\n'),
      )
      return
    }
    const { apiKey } = await ctx.client.call(getKey).catch((error: unknown) => {
      if (error instanceof ApiClientError && error.status === 404)
        throw new CliError(`${ctx.server} has no API key yet: make one with folio keys rotate.`, EXIT.failed, error.error)
      throw error
    })
    ctx.print({ apiKey }, () => apiKey)
  })
