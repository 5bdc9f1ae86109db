import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'

/** folio login, logout, whoami: which server the commands talk to, and with which key. */
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
  $ folio login --server localhost:3000                 the local server, no key
A key is checked against the server first (GET /api/keys answers only to the right key); a key
the server refuses is not saved. The saved key is sent only to this server: commands pointed
elsewhere (--server, FOLIO_URL) send no key unless given one (--key, FOLIO_API_KEY).
The profile lives in ~/.config/folio/profile.json ($FOLIO_CONFIG_DIR to move it).`,
    )
    .action(lazyAction(() => import('../actions/login.js')))

  program
    .command('logout')
    .description('forget the key folio login saved for the server in use (the server stays the default)')
    .addHelpText('after', '\nExamples:\n  $ folio logout\n  $ folio logout --server https://folio.example.com')
    .action(lazyAction(() => import('../actions/logout.js')))

  program
    .command('whoami')
    .description('which server and key the commands use, where each comes from, and whether the server accepts the key')
    .addHelpText(
      'after',
      `
Examples:
  $ folio whoami
  $ folio whoami --server nas:3000 --json
Prints the server (and whether it came from --server, FOLIO_URL, the login profile or the
default), the key's source, what the server makes of it (accepted, refused, or not needed from
this machine), and whether it runs in OSS or Cloud mode. Exit code 1 when the server cannot be
reached; a refused key is reported, not a failure (exit 0).`,
    )
    .action(lazyAction(() => import('../actions/whoami.js')))
}
