import { defineConfig } from 'tsup'

/**
 * The whole CLI, dependencies included, is one ESM file: dist/cli.mjs. Commands import their
 * heavy parts (the server, later the TUI) with dynamic import(); in a single bundle esbuild turns
 * those into lazy initialisers, so `folio --help` never evaluates them.
 * ESM because some dependencies (yoga-layout, under ink) use top-level await; the banner gives
 * bundled CommonJS code the `require` it expects.
 */
export default defineConfig({
  entry: { cli: 'src/cli/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  noExternal: [/.*/],
  splitting: false,
  sourcemap: true,
  clean: true,
  dts: false,
  outExtension: () => ({ js: '.mjs' }),
  banner: { js: "import { createRequire as __folioCreateRequire } from 'node:module'; const require = __folioCreateRequire(import.meta.url);" },
})
