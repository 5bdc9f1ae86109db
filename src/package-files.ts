/**
 * The single executable (npm run build:binary, scripts/build-binary.mjs) carries the package's own
 * files as SEA assets, under the paths they have in the package: package.json, dist/web/… (the
 * share page's, dashboard's and bridge's bundles) and templates/… (starters, design systems). The
 * npm install reads them from disk beside the code. This module answers which, and reads the
 * embedded ones; web-assets.ts, templates.ts and version.ts read through it.
 */

interface Sea {
  isSea(): boolean
  getRawAsset(key: string): ArrayBuffer
  getAssetKeys?(): string[]
}

let sea: Sea | null | undefined

/** node:sea, when this process is a single executable; null otherwise (or on a Node without it). */
function seaModule(): Sea | null {
  if (sea !== undefined) return sea
  try {
    const loaded = process.getBuiltinModule('node:sea') as Sea | undefined
    sea = loaded?.isSea() ? loaded : null
  } catch {
    sea = null
  }
  return sea
}

/** Whether this process is folio's single executable. */
export const isSingleExecutable = (): boolean => seaModule() !== null

/** An embedded file's bytes by its path in the package (dist/web/manifest.json); undefined when there is none. */
export function embeddedFile(path: string): Buffer | undefined {
  const s = seaModule()
  if (!s) return undefined
  try {
    return Buffer.from(s.getRawAsset(path))
  } catch {
    return undefined
  }
}

/** The embedded files directly in `dir` (templates/design-systems), by name. */
export function embeddedNames(dir: string): string[] {
  const keys = seaModule()?.getAssetKeys?.() ?? []
  const prefix = `${dir.replace(/\/+$/, '')}/`
  return keys.filter((k) => k.startsWith(prefix) && !k.slice(prefix.length).includes('/')).map((k) => k.slice(prefix.length))
}

/** What the program runs on: "Node v20.19.5", or "single executable, Node v26.12.1". */
export function runtimeLabel(): string {
  return `${isSingleExecutable() ? 'single executable, ' : ''}Node ${process.version}`
}

/** `folio --version`: the version, and for the single executable what it is and the Node it embeds. */
export function versionLine(version: string): string {
  return isSingleExecutable() ? `${version} (${runtimeLabel()})` : version
}
