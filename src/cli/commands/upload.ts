import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'

export function registerUpload(program: Command): void {
  program
    .command('upload')
    .description('upload images into the latest version of a folio (no new version)')
    .argument('<id>', 'folio id')
    .argument('<files...>', 'image files: PNG, JPEG, GIF, WebP, ICO, BMP or SVG')
    .option('--to <dir>', 'folder inside the folio to put them in, e.g. img')
    .addHelpText(
      'after',
      `
Examples:
  $ folio upload kL9VtGLOsbNK logo.png
  $ folio upload kL9VtGLOsbNK shots/*.png --to img
Other files (HTML, CSS, JS) travel with folio sync.`,
    )
    .action(lazyAction(() => import('../actions/upload.js')))
}
