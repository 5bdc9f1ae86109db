/**
 * npm run build:binary: folio as one file that needs no Node, a Node single executable
 * application (SEA): dist/bin/folio-<platform>-<arch>.
 *
 * - The Node it embeds is NODE_VERSION, taken from the npm registry (the node-<platform>-<arch>
 *   packages hold the official binaries), not this machine's Node: SEA with an ESM entry (folio's
 *   bundle is ESM: yoga-layout, under the terminal UI, uses top-level await) and the one-step
 *   --build-sea came in Node 25.5–25.7; 26 is the line they are stable in.
 * - The code is the CLI (and the server, and the terminal UI) bundled into one ESM file, with
 *   dynamic imports inlined: SEA runs one script, and can import nothing but Node's own modules.
 * - The package's own files are SEA assets under their package paths (src/package-files.ts reads
 *   them): package.json, dist/web/* (the share page's, dashboard's and bridge's bundles) and
 *   templates/**.
 * - Where `strip` is found (binutils), the Node binary loses its symbol table first: 150 → 117 MB
 *   for Node 26 on linux-x64, nothing of what runs. Without it the binary is that much larger.
 *
 * Usage: npm run build:binary [-- --target linux-arm64] (default: this machine's platform and
 * arch). Another target than this machine builds its file here (same Node version), but macOS's
 * must then be signed on a Mac (codesign --sign -): .github/workflows/binaries.yml builds each on
 * its own runner.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'tsup'
import { cliBuild } from '../tsup.config.js'

export const NODE_VERSION = '26.12.1'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cache = join(root, 'node_modules', '.cache', 'folio-binary')

/** node-<platform>-<arch> on the npm registry: the platform as Node says it, but win for win32. */
const packageOf = (target: string) => `node-${target.replace(/^win32-/, 'win-')}`

function targetFromArgs(): string {
  const i = process.argv.indexOf('--target')
  const target = i === -1 ? `${process.platform}-${process.arch}` : process.argv[i + 1]
  if (!target || !/^(linux|darwin|win32)-(x64|arm64)$/.test(target)) {
    throw new Error(`--target is linux-x64, linux-arm64, darwin-x64, darwin-arm64 or win32-x64 (got ${target ?? 'nothing'})`)
  }
  return target
}

/** The official Node binary of `target`, installed from the npm registry into node_modules/.cache once. */
function nodeBinary(target: string): string {
  const [os, cpu] = target.split('-') as [string, string]
  const name = packageOf(target)
  const prefix = join(cache, `${name}-${NODE_VERSION}`)
  const binary = join(prefix, 'node_modules', name, 'bin', os === 'win32' ? 'node.exe' : 'node')
  if (!existsSync(binary)) {
    console.log(`Fetching Node ${NODE_VERSION} for ${target} (${name} from the npm registry)…`)
    mkdirSync(prefix, { recursive: true })
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    const args = ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--os', os, '--cpu', cpu]
    const installed = spawnSync(npm, [...args, `${name}@${NODE_VERSION}`], { stdio: 'inherit', shell: process.platform === 'win32' })
    if (installed.status !== 0 || !existsSync(binary)) throw new Error(`npm could not install ${name}@${NODE_VERSION}; see above.`)
  }
  return binary
}

/** A copy of `binary` without its symbol table, when this machine has strip (and the target is an ELF one). */
function stripped(binary: string, target: string): string {
  if (!target.startsWith('linux-') || spawnSync('strip', ['--version']).status !== 0) return binary
  const copy = `${binary}.stripped`
  if (!existsSync(copy)) {
    copyFileSync(binary, `${copy}.tmp`)
    execFileSync('strip', [`${copy}.tmp`])
    copyFileSync(`${copy}.tmp`, copy)
    rmSync(`${copy}.tmp`)
  }
  return copy
}

/** Every file under `dir`, as package paths. */
function filesUnder(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else out.push(relative(root, path).split('\\').join('/'))
    }
  }
  walk(join(root, dir))
  return out
}

async function main() {
  const target = targetFromArgs()
  const hostTarget = `${process.platform}-${process.arch}`
  if (!existsSync(join(root, 'dist', 'web', 'manifest.json'))) throw new Error('dist/web is missing: run npm run build first (npm run build:binary does).')

  console.log('Bundling the CLI, the server and the terminal UI into one file…')
  const bundleDir = join(root, 'dist', 'sea')
  await build({
    ...cliBuild,
    entry: { folio: 'src/cli/single-executable.ts' },
    outDir: bundleDir,
    splitting: false,
    sourcemap: false,
    clean: true,
    silent: true,
    config: false, // this build only, not tsup.config.ts's list
  })

  const assets: Record<string, string> = {}
  for (const path of ['package.json', ...filesUnder('dist/web'), ...filesUnder('templates')]) assets[path] = join(root, path)

  const builder = nodeBinary(hostTarget) // runs --build-sea: the same Node version as the one embedded
  const embedded = stripped(target === hostTarget ? builder : nodeBinary(target), target)
  const output = join(root, 'dist', 'bin', `folio-${target}${target.startsWith('win32') ? '.exe' : ''}`)
  mkdirSync(dirname(output), { recursive: true })
  const config = join(bundleDir, 'sea-config.json')
  writeFileSync(
    config,
    JSON.stringify(
      {
        main: join(bundleDir, 'folio.mjs'),
        mainFormat: 'module',
        executable: embedded,
        output,
        disableExperimentalSEAWarning: true,
        useCodeCache: target === hostTarget, // V8's code cache is made by the builder: only for its own platform
        assets,
      },
      null,
      2,
    ),
  )
  console.log(`Building ${relative(root, output)} (Node ${NODE_VERSION}, ${Object.keys(assets).length} embedded files)…`)
  const built = spawnSync(builder, ['--build-sea', config], { stdio: 'inherit' })
  if (built.status !== 0) throw new Error('node --build-sea failed; see above.')
  const mb = (statSync(output).size / 1024 / 1024).toFixed(1)
  console.log(`${relative(root, output)}: ${mb} MB. Try it: ${relative(process.cwd(), output) || output} --version`)
}

// Run as a script (npm run build:binary); imported (the test reads NODE_VERSION), it does nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
  })
}
