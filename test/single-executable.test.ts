import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NODE_VERSION } from '../scripts/build-binary.js'

/*
 * Issue 29: `npm run build:binary` makes folio one file that needs no Node. Built here as a user
 * builds it (the same script), copied into an empty folder and run with a PATH that has no node
 * and a HOME of its own: every command a self-hosting author runs first.
 */
const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BUILT = join(ROOT, 'dist', 'bin', `folio-${process.platform}-${process.arch}`)

let place: string
let binary: string
/** Nothing but the binary's own folder on PATH: no node, no npm. */
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  const built = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build-binary.ts')], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 })
  expect(built.stdout).toContain(`(Node ${NODE_VERSION}, `)
  place = await mkdtemp(join(tmpdir(), 'folio-binary-'))
  binary = join(place, 'folio')
  await copyFile(BUILT, binary)
  const home = join(place, 'home')
  await mkdir(home)
  env = { PATH: place, HOME: home, TMPDIR: join(place, 'tmp'), FOLIO_CONFIG_DIR: join(home, '.config', 'folio'), NO_COLOR: '1' }
  await mkdir(env.TMPDIR!)
}, 300_000)

afterAll(async () => {
  if (place) await rm(place, { recursive: true, force: true })
})

interface Ran {
  code: number
  stdout: string
  stderr: string
}
const folio = (args: string[], cwd = place): Promise<Ran> =>
  run(binary, args, { cwd, env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: Ran) => error,
  )

describe('the single executable', () => {
  it('says it is one, and which Node it embeds, with no node on PATH', async () => {
    await expect(run('node', ['--version'], { env })).rejects.toThrow(/ENOENT/)
    const version = await folio(['--version'])
    expect(version.stdout).toBe(`0.1.0 (single executable, Node v${NODE_VERSION})\n`)
    const help = await folio(['--help'])
    expect(help.stdout).toMatch(/^Usage: folio \[options\] \[command\]/)
    const unknown = await folio(['frobnicate'])
    expect(unknown.code).toBe(2)
  })

  it('serves a fresh data dir, creates a folio from a folder, serves its share page and bundles, reports status, and stops cleanly', async () => {
    const data = join(place, 'data')
    const child: ChildProcess = spawn(binary, ['serve', '--port', '0', '--data', data, '--json'], { cwd: place, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d) => (out += d))
    child.stderr!.on('data', (d) => (out += d))
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line: ${out}`)), 30_000)
      child.stdout!.on('data', () => {
        const line = out.split('\n').find((l) => l.startsWith('{'))
        if (line) {
          clearTimeout(timer)
          resolve(JSON.parse(line).url)
        }
      })
    })

    const site = join(place, 'site')
    await mkdir(site)
    await writeFile(join(site, 'index.html'), '<!doctype html><title>Binary deck</title><h1>Made by one file</h1><p>No node here.</p>')
    await writeFile(join(site, 'style.css'), 'h1 { color: teal }')
    const created = await folio(['create', '--dir', site, '--publish', '--json', '--server', url])
    expect(created.code, created.stderr).toBe(0)
    const { id, title, status: published } = JSON.parse(created.stdout)
    expect({ title, published }).toEqual({ title: 'Binary deck', published: 'published' })

    const page = await fetch(`${url}/share/${id}`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('<meta property="og:title" content="Binary deck"')
    const bundles = [...html.matchAll(/\/_folio\/[\w.-]+\.(?:js|css)/g)].map((m) => m[0])
    expect(bundles.length).toBeGreaterThan(0)
    for (const bundle of bundles) {
      const res = await fetch(`${url}${bundle}`, { headers: { 'accept-encoding': 'br' } })
      expect(res.status, bundle).toBe(200)
      expect((await res.arrayBuffer()).byteLength, bundle).toBeGreaterThan(100)
    }
    const dashboard = await fetch(`${url}/`)
    expect(await dashboard.text()).toContain('/_folio/dashboard')
    expect((await (await fetch(`${url}/api/design-systems`)).json()).designSystems.length).toBeGreaterThan(3)

    const status = await folio(['status', '--json', '--server', url])
    expect(status.code, status.stderr).toBe(0)
    expect(JSON.parse(status.stdout).folios.map((f: { id: string }) => f.id)).toEqual([id])

    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    const [code] = await exited
    expect(code, out).toBe(0)
    // It wrote nothing but the data dir, the config dir (under HOME) and the temp dir.
    expect((await readdir(place)).sort()).toEqual(['data', 'folio', 'home', 'site', 'tmp'])
  }, 120_000)
})
