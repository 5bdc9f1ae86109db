import { type Command, Argument } from 'commander'
import { lazyAction } from '../lazy.js'

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
Rotating or revoking also updates the key saved by folio login for this server, and
revokes every OAuth grant (folio oauth): authorized agents must be approved again.
Remote callers (through the tunnel) and the sync endpoint with FOLIO_API_KEY set need the key.`,
    )
    .action(lazyAction(() => import('../actions/keys.js')))
}
