import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { embeddedFile } from './package-files.js'

/** folio's name on the npm registry (`folio` there is someone else's); the command stays `folio`. */
export const PACKAGE_NAME = 'folio-cli'

let cached: string | undefined

/** The package's version, read from its package.json (found by walking up from this module). */
export function packageVersion(): string {
  if (cached) return cached
  // The single executable carries its package.json (package-files.ts).
  const embedded = embeddedFile('package.json')
  if (embedded) return (cached = (JSON.parse(embedded.toString('utf8')) as { version: string }).version)
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === PACKAGE_NAME && pkg.version) return (cached = pkg.version)
    } catch {
      // not here; keep walking up
    }
  }
  return (cached = '0.0.0')
}
