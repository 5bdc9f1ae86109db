import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { embeddedFile, isSingleExecutable } from '../../package-files.js'
import type { ContentEncoding } from '../http/content-encoding.js'

/**
 * The browser's side of folio as the web build left it in dist/web/ (src/web/build/web-bundles.ts):
 * bundles with content-hashed names and their precompressed copies, the share page and dashboard
 * templates, read once (per process) and served from memory.
 */
export interface WebAsset {
  /** The name it is served under: share-3FZK2Q7A.js */
  file: string
  type: string
  body: Buffer
  /** Compressed at build time, at the highest levels. */
  encoded: Partial<Record<ContentEncoding, Buffer>>
  etag: string
}

export interface WebAssets {
  /** By served name (hashed, immutable) or logical name (share.js: always the newest build). */
  get(name: string): WebAsset | undefined
  /** Where the browser loads a bundle: /_folio/share-3FZK2Q7A.js */
  url(logical: string): string
  /** A bundle's text, for what is inlined (the frame's storage stand-ins). */
  text(logical: string): string
  sharePage: string
  dashboardPage: string
  /** The MCP Apps view (server/mcp/mcp-app.ts): one document, its script and styles inline. */
  mcpAppPage: string
}

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' }

/** dist/web beside the running code: dist/ when it is the built CLI, <repo>/dist from src/ (tests). */
export function findWebDir(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, 'web'), join(dir, 'dist', 'web')]) {
      if (existsSync(join(candidate, 'manifest.json'))) return candidate
    }
    if (dirname(dir) === dir) {
      throw new Error("The share page's and dashboard's bundles (dist/web) are missing: run npm run build, or reinstall folio.")
    }
  }
}

const loaded = new Map<string, WebAssets>()

/**
 * Read synchronously, once per process: a few hundred KB, before the server answers anything. The
 * single executable has them embedded (package-files.ts); the npm install, in dist/web.
 */
export function loadWebAssets(dir?: string): WebAssets {
  if (dir === undefined && isSingleExecutable()) dir = EMBEDDED
  dir ??= findWebDir()
  let assets = loaded.get(dir)
  if (!assets) loaded.set(dir, (assets = readWebAssets(dir === EMBEDDED ? embedded : (name) => readFileSync(join(dir, name)))))
  return assets
}

const EMBEDDED = 'dist/web'
const embedded = (name: string) => {
  const bytes = embeddedFile(`${EMBEDDED}/${name}`)
  if (!bytes) throw new Error(`This folio executable has no ${EMBEDDED}/${name}: build it again with npm run build:binary.`)
  return bytes
}

function readWebAssets(read: (name: string) => Buffer): WebAssets {
  const manifest = JSON.parse(read('manifest.json').toString('utf8')) as { assets: Record<string, string> }
  const byName = new Map<string, WebAsset>()
  for (const [logical, file] of Object.entries(manifest.assets)) {
    const body = read(file)
    const asset: WebAsset = {
      file,
      type: TYPES[file.slice(file.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
      body,
      encoded: { br: read(`${file}.br`), gzip: read(`${file}.gz`) },
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`,
    }
    byName.set(file, asset)
    byName.set(logical, asset)
  }
  const fileOf = (logical: string) => {
    const file = manifest.assets[logical]
    if (!file) throw new Error(`dist/web/manifest.json names no ${logical}: run npm run build`)
    return file
  }
  return {
    get: (name) => byName.get(name),
    url: (logical) => `/_folio/${fileOf(logical)}`,
    text: (logical) => byName.get(fileOf(logical))!.body.toString('utf8').trim(),
    sharePage: read('share.html').toString('utf8'),
    dashboardPage: read('dashboard.html').toString('utf8'),
    mcpAppPage: read('mcp-app.html').toString('utf8'),
  }
}

/** Served under its hashed name: the content never changes at that URL. */
export const isImmutableName = (asset: WebAsset, requested: string) => requested === asset.file
