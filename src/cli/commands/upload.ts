import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'
import { FOLIO_ID_HELP } from './folio-id.js'

export function registerUpload(program: Command): void {
  program
    .command('upload')
    .description('upload images into the latest version of a folio (no new version)')
    .usage('[options] [id] <files...>')
    .argument('[id]', FOLIO_ID_HELP)
    .argument('[files...]', 'image files: PNG, JPEG, GIF, WebP, ICO, BMP or SVG')
    .option('--to <dir>', 'folder inside the folio to put them in, e.g. img')
    .addHelpText(
      'after',
      `
Examples:
  $ folio upload kL9VtGLOsbNK logo.png
  $ folio upload kL9VtGLOsbNK shots/*.png --to img
  $ folio upload shots/*.png --to img                 in a linked folder (a first word that is a file is a file)
Files land at --to + their base name: two files with the same name (shots/a.png, d2/a.png) are
refused; upload them in separate runs with different --to folders. Files that are not images are
skipped with a note on stderr (the exit code is non-zero only when nothing was uploaded).
Other files (HTML, CSS, JS) travel with folio sync, which keeps uploaded images (see its --help).`,
    )
    .action(lazyAction(() => import('../actions/upload.js')))
}
