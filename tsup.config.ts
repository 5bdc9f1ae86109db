import type { Plugin } from 'esbuild'
import { defineConfig, type Options } from 'tsup'
import { webBundles } from './src/web/build/web-bundles.js'

/**
 * Ink connects React DevTools only when DEV=true, through its devtools.js, which imports
 * react-devtools-core (not installed) and ws. The bundle gets inert stand-ins for both, so it
 * resolves and does not carry code that never runs.
 */
const stubReactDevtools: Plugin = {
  name: 'stub-react-devtools',
  setup(build) {
    build.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'folio-stub' }))
    build.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /[\\/]ink[\\/]build[\\/]/.test(args.importer) ? { path: 'ink-devtools', namespace: 'folio-stub' } : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'folio-stub' }, () => ({
      contents: 'export default { initialize() {}, connectToDevTools() {} }',
      loader: 'js',
    }))
  },
}

/**
 * listhen's features folio never turns on bring dependencies of their own: the WebSocket adapter,
 * the tunnel, the clipboard, the dev server and its file watcher (loaded lazily: chunks that
 * would ship unused) and the self-signed HTTPS certificates (node-forge, imported eagerly: ~0.7 MB
 * parsed at every `folio serve` start). The bundle gets stand-ins that fail loudly if one of
 * those features is ever turned on (server/http/listener.ts keeps them off).
 */
const UNUSED_BY_FOLIO = /^(node-forge|jiti|untun|tinyclip|crossws\/adapters\/node|@parcel\/watcher(-wasm)?)$/
const stubListhenExtras: Plugin = {
  name: 'stub-listhen-extras',
  setup(build) {
    build.onResolve({ filter: UNUSED_BY_FOLIO }, (args) =>
      /[\\/]listhen[\\/]/.test(args.importer) ? { path: args.path, namespace: 'folio-unused' } : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'folio-unused' }, (args) => ({
      contents: `const unused = () => { throw new Error(${JSON.stringify(`${args.path} is not in folio's bundle: this listhen feature is off`)}) }
export default new Proxy({}, { get: unused })
export { unused as createJiti, unused as startTunnel, unused as writeText, unused as subscribe }`,
      loader: 'js',
    }))
  },
}

/**
 * The CLI, dependencies included, is one ESM entry file: dist/cli.mjs (commander and the
 * commands). The heavy parts the commands import with dynamic import() — the server, the Ink
 * TUI — are split into chunks beside it and loaded only when a command needs them: in one
 * single file Node would parse ~2.5 MB on every `folio --help` (measured: 181 ms vs 145 ms).
 * ESM because some dependencies (yoga-layout, under ink) use top-level await; the banner gives
 * bundled CommonJS code the `require` it expects. NODE_ENV is fixed to production so React's
 * CommonJS entry points keep only their production builds (the development ones are dropped).
 *
 * Source maps only for the working tree (npm run build, npm test): a debugger, or
 * `node --enable-source-maps bin/folio.mjs`, then points at src/. The package's build (npm pack and
 * npm publish run prepack) has none: they were 5.9 MB of its 9.5 MB, and Node ignores them unless
 * asked. A stack trace without them still names the function, in readable (unminified) code.
 */
const packing = process.env.npm_lifecycle_event === 'prepack'

/**
 * Two builds. The CLI and server (below), and the browser's side (src/web/build/web-bundles.ts):
 * the share page, the dashboard and the frame's bridge, each one minified script and one
 * stylesheet with content-hashed names in dist/web/, precompressed, with the pages that load them.
 * The CLI build cleans dist/ but for web/, which the other build owns: they run side by side.
 */
/** The CLI's build; scripts/build-binary.ts makes the single executable's one-file bundle from it. */
export const cliBuild = {
  entry: { cli: 'src/cli/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  noExternal: [/.*/],
  splitting: true,
  sourcemap: !packing,
  clean: ['!web/**'],
  dts: false,
  outExtension: () => ({ js: '.mjs' }),
  define: { 'process.env.NODE_ENV': '"production"' },
  esbuildPlugins: [stubReactDevtools, stubListhenExtras],
  banner: { js: "import { createRequire as __folioCreateRequire } from 'node:module'; const require = __folioCreateRequire(import.meta.url);" },
} satisfies Options

export default defineConfig([cliBuild, webBundles({ packing })])
