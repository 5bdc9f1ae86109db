import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { testApi } from './helpers/api.js'

/**
 * The package as a newcomer gets it: packed the way `npm publish` packs it (prepack builds dist/,
 * without source maps), installed into an empty folder with a clean HOME, no devDependencies and
 * no network (--offline: the bundle has no runtime dependencies, so there is nothing to fetch),
 * then run from there as `folio`. Packing happens in a copy of the project, so the dist/ the other
 * test files run is never rebuilt under them.
 */
const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
/** What packing needs of the project: everything but what is installed, built or only tested. */
const NOT_COPIED = new Set(['node_modules', 'dist', 'test', 'test-artifacts', '.folio', '.git'])
/** Lifecycle scripts npm runs when someone installs the package: none may be in the manifest. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare']

let work: string
let home: string
let tarball: string
let packed: { filename: string; version: string; files: { path: string }[] }
let installLog: string
let installed: string

/** A fresh environment: this PATH (for node and npm), a HOME of its own, nothing else. */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
  HOME: home,
  npm_config_cache: join(home, '.npm'),
  npm_config_update_notifier: 'false',
  ...extra,
})

/** Runs a program in the clean environment; resolves with its exit code and output. */
function run(file: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}

/** npm, as the npm that runs this suite (npm test) or the one on PATH: [file, its first arguments]. */
const npmCommand = (): [string, string[]] => (process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []])

function npm(args: string[], cwd: string) {
  const [file, pre] = npmCommand()
  return run(file, [...pre, ...args], cwd)
}

/** The installed `folio` command, run the way a shell runs it (its #! line, its bin link). */
const folio = (args: string[], cwd: string) => run(join(installed, '.bin', 'folio'), args, cwd)

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-package-'))
  home = join(work, 'home')
  await mkdir(home)
  const project = join(work, 'project')
  await cp(ROOT, project, { recursive: true, filter: (source) => dirname(source) !== ROOT || !NOT_COPIED.has(basename(source)) })
  // The build tools of the working tree build the copy (no network, no second install).
  await symlink(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir')
  const pack = await npm(['pack', '--json', '--pack-destination', work], project)
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`)
  // Whatever a build script printed comes before npm's JSON.
  packed = JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m)))[0]
  tarball = join(work, packed.filename)

  const app = join(work, 'app')
  await mkdir(app)
  // --prefix: the empty folder is the project, whatever package.json a folder above might hold.
  const install = await npm(['install', '--prefix', app, '--offline', '--omit=dev', '--no-audit', '--no-fund', tarball], app)
  installLog = install.stdout + install.stderr
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${installLog}`)
  installed = join(app, 'node_modules')
}, 120_000)

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

describe('the packed package', () => {
  it('is named folio-cli on the registry and installs the folio command', async () => {
    const manifest = JSON.parse(await readFile(join(installed, 'folio-cli', 'package.json'), 'utf8'))
    expect(manifest.name).toBe('folio-cli')
    expect(manifest.bin).toEqual({ folio: 'bin/folio.mjs' })
    expect(manifest.license).toBe('MIT')
    // The bundle carries its dependencies: nothing to fetch on install.
    expect(manifest.dependencies).toBeUndefined()
    for (const script of INSTALL_SCRIPTS) expect(manifest.scripts?.[script], script).toBeUndefined()
  })

  it('holds the command, the bundle, the browser bundles, the templates, the README and an MIT LICENSE; no source maps', async () => {
    const paths = packed.files.map((f) => f.path)
    const unexpected = paths.filter(
      (p) =>
        !/^(bin\/folio\.mjs|dist\/[^/]+\.mjs|dist\/web\/([\w-]+\.(js|css)(\.br|\.gz)?|share\.html|dashboard\.html|mcp-app\.html|manifest\.json)|templates\/.+|LICENSE|README\.md|package\.json)$/.test(
          p,
        ),
    )
    expect(unexpected).toEqual([])
    for (const required of [
      'bin/folio.mjs',
      'dist/cli.mjs',
      'dist/web/manifest.json',
      'dist/web/share.html',
      'dist/web/mcp-app.html',
      'templates/starters/deck.html',
      'LICENSE',
      'README.md',
    ])
      expect(paths).toContain(required)
    // Nor a pointer to one: the package's build makes none (tsup.config.ts).
    const dist = join(installed, 'folio-cli', 'dist')
    for (const file of (await readdir(dist)).filter((f) => f.endsWith('.mjs')))
      expect(await readFile(join(dist, file), 'utf8'), file).not.toContain('sourceMappingURL')
    expect(await readFile(join(installed, 'folio-cli', 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} the folio authors\n/)
  })

  it('installs offline from the tarball alone, with no install scripts to run or approve', async () => {
    expect(installLog).toContain('added 1 package')
    expect(installLog).not.toMatch(/install-scripts|prepare|tsup/)
    expect((await readdir(installed)).sort()).toEqual(['.bin', '.package-lock.json', 'folio-cli'])
  })
})

describe('the installed folio command', () => {
  it('tells its version and its commands', async () => {
    const version = await folio(['--version'], work)
    expect(version).toMatchObject({ code: 0, stdout: `${packed.version}\n` })
    expect(packed.version).toBe(JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version)
    const help = await folio(['--help'], work)
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: folio \[options\] \[command\]/)
    for (const command of ['serve', 'create', 'sync', 'status']) expect(help.stdout).toContain(`  ${command} `)
  })

  it('serves, creates a folio from a folder as the banner says, syncs an edit, and reports status', async () => {
    const server = await serveFrom(join(installed, '.bin', 'folio'), ['serve', '--port', '0', '--data', join(work, 'data')])
    try {
      expect(server.stdout).toContain(`  ➜ Local:    ${server.url}\n`)
      // The banner's next step, run as printed in a folder of pages.
      const site = join(work, 'q3-review')
      await mkdir(site)
      await writeFile(join(site, 'index.html'), '<h1>Q3 review</h1>')
      const next = /^Next: folio (.+)$/m.exec(server.stdout)![1]!.split(' ')
      expect(next).toEqual(['create', '--dir', '.', '--publish', '--server', server.url])
      const created = await folio([...next, '--json'], site)
      expect(created.code, created.stderr).toBe(0)
      const { id, status } = JSON.parse(created.stdout)
      expect(status).toBe('published')
      // The share page and the bundles it loads come from the package's own dist/web.
      const share = await fetch(`${server.url}/share/${id}`)
      expect(share.status).toBe(200)
      const bundle = /<script defer src="([^"]+)"/.exec(await share.text())?.[1]
      expect(bundle).toMatch(/^\/_folio\/share-\w+\.js$/)
      expect((await fetch(`${server.url}${bundle}`)).status).toBe(200)

      await writeFile(join(site, 'notes.html'), '<p>notes</p>')
      const synced = await folio(['sync', id, '.', '--server', server.url, '--json'], site)
      expect(synced.code, synced.stderr).toBe(0)
      expect(JSON.parse(synced.stdout)).toMatchObject({ event: 'synced' })
      const stored = (await testApi(server.url).send(getFolio, { params: { id }, query: { files: 'latest' } })).body
      // Titled from the page's heading, not the folder's name.
      expect(stored.title).toBe('Q3 review')
      expect(Object.keys(stored.versions.at(-1).files).sort()).toEqual(['index.html', 'notes.html'])

      const state = await folio(['status', '--json', '--server', server.url], site)
      expect(state.code, state.stderr).toBe(0)
      expect(JSON.parse(state.stdout).folios).toContainEqual(expect.objectContaining({ id, title: 'Q3 review', status: 'published' }))
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null })
    }
  })

  it('run through npx (npx folio-cli serve), names npx in its next step, which works as printed', async () => {
    // `npx folio-cli …` with the package from the tarball instead of the registry.
    const [file, pre] = npmCommand()
    const npx = (args: string[]) => [...pre, 'exec', '--yes', '--offline', `--package=${tarball}`, '--', 'folio', ...args]
    const server = await serveFrom(file, npx(['serve', '--port', '0', '--data', join(work, 'npx-data')]))
    try {
      const site = join(work, 'npx-site')
      await mkdir(site)
      await writeFile(join(site, 'index.html'), '<h1>npx</h1>')
      const next = /^Next: npx folio-cli (.+)$/m.exec(server.stdout)?.[1]?.split(' ')
      expect(next).toEqual(['create', '--dir', '.', '--publish', '--server', server.url])
      const created = await run(file, npx([...next!, '--json']), site)
      expect(created.code, created.stderr).toBe(0)
      expect(JSON.parse(created.stdout)).toMatchObject({ status: 'published' })
    } finally {
      // folio stops cleanly (stop() checks its notes); how npm itself ends on SIGINT is npm's affair.
      await server.stop()
    }
  })
})

/**
 * `folio serve` started by `file args`, once its banner is complete. stop() is Ctrl+C at a
 * terminal: SIGINT to the whole process group (npx's npm and shell pass on no signal), then
 * checks that it stopped cleanly.
 */
async function serveFrom(file: string, args: string[]) {
  const child = spawn(file, args, { cwd: work, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const exited = once(child, 'exit')
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT')
    await exited
    // Its notes on stopping, and no warning or error (those start with "folio: ").
    expect(stderr).not.toMatch(/^folio: |Error/m)
    expect(stderr).toContain('Stopped.')
    return { code: child.exitCode, signal: child.signalCode }
  }
  const deadline = Date.now() + 30_000
  while (!/^Press Ctrl\+C to stop\.$/m.test(stdout)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL')
      throw new Error(`folio serve did not start:\n${stdout}\n${stderr}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return { url: /^folio is serving (\S+)$/m.exec(stdout)![1]!, stdout, stop }
}
