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
    .option(
      '-f, --force',
      'push the whole folder as the new version even when a version was made elsewhere since its last sync (the folder wins; that version stays in the history)',
    )
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

A version made elsewhere (folio restore, the dashboard, another machine) is never overwritten
unasked. The watcher hears of it within about a second: when the folder has nothing unpushed it
pulls that version into the folder (files it replaces or removes are in the folio's history;
anything else stays) and says so; when the folder has unpushed changes too, it names the files
changed on both sides and stops with exit 1 ({"error":"conflict"} with --json), pushing nothing.
A one-off sync behind such a version pushes nothing: with no changes of its own it says so and
suggests folio pull (exit 0); with changes it refuses the same way (exit 1). The ways out:
folio pull (take the folio's files) or folio sync --force (the folder wins; with --watch, for
its first push only). When the server is away the watcher queues changes and checks every 2 s,
pushing as soon as it is back. Ctrl+C pushes what is left once (10 s at most): exit 0 when
everything is pushed, 130 naming what was not.
With FOLIO_API_KEY set on the server, pass the key (--key or $FOLIO_API_KEY).`,
    )
    .action(lazyAction(() => import('../actions/sync.js')))

  program
    .command('pull')
    .description("write a folio's latest files into a folder: nothing is lost that is not in the folio's history")
    .argument('[id]', FOLIO_ID_HELP)
    .argument('[dir]', 'the folder to write into (made when missing); default: the linked folder, else the working directory')
    .option('-f, --force', "overwrite the folder's unpushed changes with the folio's files")
    .option('--at <versionId>', 'write this version instead of the latest, e.g. v2 (a sync then pushes it as a new version)')
    .addHelpText(
      'after',
      `
Examples:
  $ folio pull                                     in a linked folder: take the folio's files
  $ folio pull kL9VtGLOsbNK ./site                 into ./site (made when missing), then linked
  $ folio pull --at v2                             v2's files; folio sync then makes them the latest
  $ folio pull --json                              {"event":"pulled","written":[…],"removed":[…],"kept":[…]}

Files of the version that the folder lacks, or holds other bytes of, are written (each whole,
then renamed into place). A folder file the version does not have is removed only when its bytes
are in the folio's history (the version the folder last synced, or bytes it pushed once), and
the summary names that version; anything else is kept and listed. When the pull would overwrite
changes of the folder that were never pushed it writes nothing and exits 1 ({"error":"conflict"}
with --json): push them (folio sync), or pass --force to take the folio's files anyway.`,
    )
    .action(lazyAction(() => import('../actions/pull.js')))
}
