import { defineConfig } from 'tsup'

// One ESM file for the CLI (bin/folio.mjs imports it). Dependencies stay external:
// they are installed next to the package, and bundling them would only slow the build.
export default defineConfig({
  entry: { cli: 'src/cli/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  splitting: true,
  sourcemap: true,
  clean: true,
  dts: false,
  outExtension: () => ({ js: '.mjs' }),
})
