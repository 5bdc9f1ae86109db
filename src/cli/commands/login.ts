import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('remember a server and its API key for the other commands (saved readable only by you)')
    .option('--no-verify', 'save without checking that the server is there and accepts the key')
    .addHelpText(
      'after',
      `
Examples:
  $ folio login --server https://folio.example.com --key folio_live_…
  $ folio login --server http://127.0.0.1:3000          the local server, no key
A key is checked against the server first (GET /api/keys answers only to the right key); a key
the server refuses is not saved. The saved key is sent only to this server: commands pointed
elsewhere (--server, FOLIO_URL) send no key unless given one (--key, FOLIO_API_KEY).
The profile lives in ~/.config/folio/profile.json ($FOLIO_CONFIG_DIR to move it).`,
    )
    .action(lazyAction(() => import('../actions/login.js')))
}
