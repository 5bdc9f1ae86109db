import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import type { Plugin } from 'esbuild'
import type { Options } from 'tsup'

/**
 * The browser's side of folio, built by tsup (tsup.config.ts) into dist/web/:
 *
 *   share-<hash>.js, share-<hash>.css        the share page (its CSS is also inlined into share.html)
 *   dashboard-<hash>.js, dashboard-<hash>.css the local dashboard
 *   bridge-<hash>.js                          the frame's bridge, added to each HTML file of a folio
 *   storage-shims-<hash>.js                   inlined at the top of each HTML file of a folio
 *   share.html, dashboard.html                the pages, with those names (and the share CSS) in
 *   mcp-app.html                              the MCP Apps view (server/mcp/mcp-app.ts): one document,
 *                                             its script and CSS inline (hosts load it as a
 *                                             document, from no URL); its bundles are not kept
 *   manifest.json                             logical name → file name, for the server
 *
 * Each script and stylesheet is one minified bundle whose name changes with its content, so the
 * server sends them `immutable`; each also has a .br and a .gz beside it, compressed once here at
 * the highest levels rather than on every request.
 */
export const WEB_ENTRIES = {
  share: 'src/web/share/main.js',
  dashboard: 'src/web/dashboard/main.js',
  bridge: 'src/web/frame/bridge.js',
  'storage-shims': 'src/web/frame/storage-shims.js',
  'mcp-app': 'src/web/mcp-app/main.js',
}

/** Entries only ever inlined into a page: no manifest entry, no compressed copies, not kept. */
const INLINE_ONLY = new Set(['mcp-app'])

const PAGES = ['share.html', 'dashboard.html', 'mcp-app.html']

export const WEB_OUT_DIR = 'dist/web'

export interface WebManifest {
  /** "share.js" → "share-3FZK2Q7A.js" */
  assets: Record<string, string>
}

export function webBundles(options: { packing: boolean }): Options {
  return {
    name: 'web',
    entry: WEB_ENTRIES,
    format: ['iife'],
    platform: 'browser',
    // What the share page may meet: phones a few years old.
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    outDir: WEB_OUT_DIR,
    minify: true,
    sourcemap: false,
    splitting: false,
    clean: true,
    dts: false,
    metafile: true,
    silent: options.packing,
    loader: { '.css': 'css' },
    esbuildPlugins: [zodEnglishOnly],
    outExtension: () => ({ js: '.js' }),
    esbuildOptions(esbuild) {
      esbuild.entryNames = '[name]-[hash]'
      esbuild.legalComments = 'none'
      esbuild.charset = 'utf8'
    },
    onSuccess: async () => finishWebBuild(),
  }
}

/** After tsup wrote the bundles: the manifest, the pages and the compressed copies. */
function finishWebBuild(): void {
  const metafilePath = join(WEB_OUT_DIR, 'metafile-iife.json')
  const metafile = JSON.parse(readFileSync(metafilePath, 'utf8')) as {
    outputs: Record<string, { entryPoint?: string; cssBundle?: string }>
  }
  rmSync(metafilePath)
  const assets: Record<string, string> = {}
  const inlined: Record<string, string> = {}
  const byEntry = new Map(Object.entries(WEB_ENTRIES).map(([name, path]) => [path, name]))
  for (const [output, info] of Object.entries(metafile.outputs)) {
    const name = info.entryPoint ? byEntry.get(info.entryPoint) : undefined
    if (!name) continue
    const into = INLINE_ONLY.has(name) ? inlined : assets
    into[`${name}.js`] = basename(output)
    if (info.cssBundle) into[`${name}.css`] = basename(info.cssBundle)
  }
  for (const file of Object.values(assets)) compressBeside(join(WEB_OUT_DIR, file))

  const all = { ...assets, ...inlined }
  const read = (name: string) => readFileSync(join(WEB_OUT_DIR, need(all, name)), 'utf8').trim()
  for (const page of PAGES) {
    const source = readFileSync(join('src/web/pages', page), 'utf8')
    // {{@css name}}: the stylesheet inline; {{@js name}}: the script inline; {{@url name.ext}}:
    // where the server serves a bundle.
    const built = source
      .replace(/\{\{@css ([\w-]+)\}\}/g, (_, name: string) => read(`${name}.css`))
      .replace(/\{\{@js ([\w-]+)\}\}/g, (_, name: string) => inlinable(read(`${name}.js`), name))
      .replace(/\{\{@url ([\w.-]+)\}\}/g, (_, name: string) => `/_folio/${need(assets, name)}`)
    writeFileSync(join(WEB_OUT_DIR, page), built)
  }
  for (const file of Object.values(inlined)) rmSync(join(WEB_OUT_DIR, file))
  writeFileSync(join(WEB_OUT_DIR, 'manifest.json'), `${JSON.stringify({ assets } satisfies WebManifest, null, 2)}\n`)
}

/** A script inside <script>…</script> must not end it early, nor open an HTML comment. */
function inlinable(script: string, name: string): string {
  if (/<\/script|<!--/i.test(script)) throw new Error(`${name}.js holds </script or <!--: it cannot be inlined as it is`)
  return script
}

/**
 * zod (under the MCP Apps SDK, in the MCP Apps view) exports its error messages in 40-odd
 * languages through a namespace the bundler cannot trim: about 260 KB of the view's 660. The view
 * never shows a zod message to anyone; English, the one zod configures itself with, is kept.
 */
const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'zod-english-only', pluginData: args.resolveDir } : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: "export { default as en } from '../locales/en.js'",
      resolveDir: args.pluginData as string,
      loader: 'js',
    }))
  },
}

function need(assets: Record<string, string>, name: string): string {
  const file = assets[name]
  if (!file) throw new Error(`The web build made no ${name}: check WEB_ENTRIES and the pages' placeholders`)
  return file
}

function compressBeside(path: string): void {
  const body = readFileSync(path)
  writeFileSync(
    `${path}.br`,
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
  )
  writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }))
}
