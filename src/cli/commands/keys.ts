import { type Command, Argument } from 'commander'
import { getKey, revokeKey, rotateKey } from '../../api/keys.js'
import { withContext } from '../context.js'

export function registerKeys(program: Command): void {
  program
    .command('keys')
    .description("show, rotate or revoke the workspace's API key")
    .addArgument(new Argument('[action]', 'what to do').choices(['show', 'rotate', 'revoke']).default('show'))
    .addHelpText(
      'after',
      `
Examples:
  $ folio keys                 print the current key
  $ folio keys rotate          a new key; the old one stops working at once
  $ folio keys revoke          no key works until you rotate again
Remote callers (through the tunnel) and the sync endpoint with FOLIO_API_KEY set need the key.`,
    )
    .action((action: 'show' | 'rotate' | 'revoke', _options, command: Command) =>
      withContext(command, async (ctx) => {
        if (action === 'revoke') {
          await ctx.client.call(revokeKey)
          ctx.print({ success: true }, () => 'Revoked: no key works until you run folio keys rotate.')
          return
        }
        const { apiKey } = await ctx.client.call(action === 'rotate' ? rotateKey : getKey)
        ctx.print({ apiKey }, () => (action === 'rotate' ? `New key (the old one no longer works):\n${apiKey}` : apiKey))
      }),
    )
}
