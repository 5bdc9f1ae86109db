import { type Command, Option } from 'commander'
import { PROJECT_MODES } from '../../domain/model.js'
import { lazyAction } from '../lazy.js'

export function registerCreate(program: Command): void {
  program
    .command('create')
    .description('create a folio from an HTML file, a folder, or the starter page of its mode')
    .argument('[title]', 'the folio’s title (default: the page’s <title> or first heading, else the folder’s or file’s name)')
    .option('--html <file>', 'an HTML file, stored as index.html')
    .option('--dir <folder>', 'a folder: every file in it (.gitignore and .folioignore are honoured)')
    .addOption(
      new Option(
        '--mode <mode>',
        'what kind of folio (default: from the page: slides → deck, charts → dashboard, one big table → spreadsheet, else document; deck without a page)',
      ).choices([...PROJECT_MODES]),
    )
    .option('--description <text>', 'a line about it (default: the page’s meta description or first paragraph)')
    .option('--prompt <text>', 'have the server’s AI model write it (OSS: the model folio serve is configured with)')
    .option('--publish', 'publish at once (default: draft, visible only to you)')
    .option('--private', 'viewers need an access key')
    .option('--access-key <key>', 'the access key of a private folio (default: a new random one, printed)')
    .option('--new', 'make a second folio of a --dir folder that is linked to one already (and link it to the new one)')
    .addHelpText(
      'after',
      `
Examples:
  $ folio create "Q3 review" --html deck.html --publish
  $ folio create "Docs" --dir ./site --mode document
  $ folio create --dir . --publish          titled from the page (<title>, else its first heading)
  $ folio create --dir . --new              a second folio of a folder linked to one already
  $ folio create "Board pack" --dir ./pack --publish --private --access-key "blue whale"
  $ folio create --prompt "a five-slide deck on otter conservation"
A private folio is created as a draft, made private, and only then published: it is never public.
A folder linked to a folio (.folio/link.json, here or above) is refused with exit code 2: publish
its changes with folio sync; --new makes another folio on purpose.
Everything goes in one request (32 MB of JSON, 20 MB gzipped); a bigger folder is refused with the
names of its biggest files: add large images afterwards with folio upload.`,
    )
    .action(lazyAction(() => import('../actions/create.js')))
}
