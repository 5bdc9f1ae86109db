import { type Command, Option } from 'commander'
import { PROJECT_MODES } from '../../domain/model.js'
import { lazyAction } from '../lazy.js'

export function registerCreate(program: Command): void {
  program
    .command('create')
    .description('create a folio from an HTML file, a folder, or the starter page of its mode')
    .argument('[title]', 'the folio’s title (default: the name of the --dir folder or --html file)')
    .option('--html <file>', 'an HTML file, stored as index.html')
    .option('--dir <folder>', 'a folder: every file in it (.gitignore and .folioignore are honoured)')
    .addOption(new Option('--mode <mode>', 'what kind of folio').choices([...PROJECT_MODES]).default('deck'))
    .option('--description <text>', 'a line about it')
    .option('--prompt <text>', 'have the server’s AI model write it (OSS: the model folio serve is configured with)')
    .option('--publish', 'publish at once (default: draft, visible only to you)')
    .option('--private', 'viewers need an access key')
    .option('--access-key <key>', 'the access key of a private folio (default: a new random one, printed)')
    .addHelpText(
      'after',
      `
Examples:
  $ folio create "Q3 review" --html deck.html --publish
  $ folio create "Docs" --dir ./site --mode document
  $ folio create --dir . --publish          titled after the folder
  $ folio create "Board pack" --dir ./pack --publish --private --access-key "blue whale"
  $ folio create --prompt "a five-slide deck on otter conservation"
A private folio is created as a draft, made private, and only then published: it is never public.
Everything goes in one request (32 MB of JSON, 20 MB gzipped); a bigger folder is refused with the
names of its biggest files: add large images afterwards with folio upload.`,
    )
    .action(lazyAction(() => import('../actions/create.js')))
}
