import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'
import { FOLIO_ID_HELP } from './folio-id.js'

export function registerSync(program: Command): void {
  program
    .command('sync')
    .description('push a folder to a folio: only changed files travel, one version per push; --watch pushes every save')
    .argument('[id]', FOLIO_ID_HELP)
    .argument('[dir]', 'the folder to publish (.gitignore and .folioignore are honoured); default: the linked folder')
    .option('-w, --watch', 'keep watching and push every save (a burst of saves becomes one version)')
    .option('-m, --message <text>', 'commit message of the versions it makes')
    .option('--debounce <ms>', 'quiet time before a burst of saves is pushed', '250')
    .option('--mirror', 'make the folio hold exactly the folder: also delete folio files that did not come from it (e.g. from folio upload)')
    .option('--allow-empty', 'allow deleting files while the folder is empty (or wholly ignored), or a push that leaves the folio with no files')
    .option('--dry-run', 'print what one sync would add, change, delete and keep; send nothing')
    .addHelpText(
      'after',
      `
Examples:
  $ folio sync kL9VtGLOsbNK ./site                 one push, then exit
  $ folio sync kL9VtGLOsbNK ./site --dry-run       what that push would do, and nothing else
  $ folio sync kL9VtGLOsbNK ./site --watch         push every save until Ctrl+C
  $ folio sync kL9VtGLOsbNK ./site --watch --json  one JSON line per push, for scripts
  $ folio sync --watch                             inside ./site, linked by the first sync

The first sync of a folder links it (./site/.folio/link.json: server and id, no key), so later
runs inside it need neither the id nor the folder.

Deletions: a file deleted from the folder is deleted from the folio. Files the folder never had
(images added with folio upload, files from another folder) are kept and listed; --mirror
deletes them too. Which files came from the folder is remembered per folder in the config dir
($FOLIO_CONFIG_DIR), so a first sync deletes nothing that was there before. Every deletion is
printed. An empty or wholly ignored folder deletes nothing unless you pass --allow-empty.

A file that cannot be read (permission denied, a link to nothing) is named with the reason and
never deleted from the folio. One push is one version and one request (at most 32 MB of JSON,
20 MB gzipped on the wire): a file no request can carry is left out and named with its size
(put images in with folio upload); the rest goes. Either way the exit code is 1, and the
watcher lists such files on every push until they go or are ignored. A change too big as a
whole is refused with the names of its biggest files (the watcher spreads it over versions).

A version made elsewhere (folio restore, the dashboard, another machine) is named, and the
whole folder is compared against it. When the server is away the watcher queues changes and
checks every 2 s, pushing as soon as it is back. Ctrl+C pushes what is left once (10 s at most):
exit 0 when everything is pushed, 130 naming what was not.
With FOLIO_API_KEY set on the server, pass the key (--key or $FOLIO_API_KEY).`,
    )
    .action(lazyAction(() => import('../actions/sync.js')))
}
