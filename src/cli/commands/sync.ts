import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'

export interface SyncOptions {
  watch?: boolean
  message?: string
  debounce: string
}

export function registerSync(program: Command): void {
  program
    .command('sync')
    .description('push a folder to a folio: only changed files travel, one version per push; --watch pushes every save')
    .argument('<id>', 'folio id')
    .argument('<dir>', 'the folder to publish (.gitignore and .folioignore are honoured)')
    .option('-w, --watch', 'keep watching and push every save (a burst of saves becomes one version)')
    .option('-m, --message <text>', 'commit message of the versions it makes')
    .option('--debounce <ms>', 'quiet time before a burst of saves is pushed', '250')
    .addHelpText(
      'after',
      `
Examples:
  $ folio sync kL9VtGLOsbNK ./site                 one push, then exit
  $ folio sync kL9VtGLOsbNK ./site --watch         push every save until Ctrl+C
  $ folio sync kL9VtGLOsbNK ./site --watch --json  one JSON line per push, for scripts
Deleted files are deleted in the folio too. When the server is away the watcher queues changes
and retries with back-off. With FOLIO_API_KEY set on the server, pass the key (--key or $FOLIO_API_KEY).`,
    )
    .action(lazyAction(() => import('../actions/sync.js')))
}
