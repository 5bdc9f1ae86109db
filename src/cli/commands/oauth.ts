import { type Command, Argument } from 'commander'
import { lazyAction } from '../lazy.js'

export function registerOAuth(program: Command): void {
  program
    .command('oauth')
    .description('list or revoke the OAuth clients (agents, apps) the workspace authorized')
    .addArgument(new Argument('[action]', 'what to do').choices(['list', 'revoke']).default('list'))
    .addArgument(new Argument('[grantId]', 'the grant to revoke (its id from folio oauth)'))
    .addHelpText(
      'after',
      `
Examples:
  $ folio oauth                  the clients authorized, newest first
  $ folio oauth revoke <id>      its tokens stop working at once
An agent connects with OAuth on its own: it is given the server's URL (…/api/mcp), and the
owner approves it on the consent page. Rotating or revoking the key (folio keys rotate)
revokes every grant too. Owner or Admin.`,
    )
    .action(lazyAction(() => import('../actions/oauth.js')))
}
