import { execFile, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { untilBanner } from './helpers/cli-process.js'

/**
 * The README's first steps, as a newcomer with only Node follows them: its install section run
 * in a copy of the repository (npm pack builds dist/ through prepack; the tarball installs
 * globally into an empty prefix), then its First steps (OSS) and Cloud mode commands run with the
 * installed `folio`, line by line, through sh. The commands are read from README.md's fenced
 * blocks, so the test breaks when the README drifts from what works.
 *
 * What the test changes, and why: npm's global prefix, cache and HOME are temporary folders (no
 * root, nothing of this machine touched); PORT=0 gives each server a free port, since 3000 may be
 * another test's; the OSS commands get FOLIO_URL (the server is not on 3000) and the Cloud ones
 * the server's real address in place of http://127.0.0.1:3000, as its banner prints them.
 */
const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
/** What packing needs of the project: everything but what is installed, built or only tested. */
const NOT_COPIED = new Set(['node_modules', 'dist', 'test', 'test-artifacts', '.folio', '.git'])

/** The `##` section of README.md whose heading starts with `heading`. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}`)
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`)
  const end = README.indexOf('\n## ', start + 1)
  return README.slice(start, end < 0 ? undefined : end)
}

/** The command lines of each ```sh block of a section: comments and blank lines left out. */
function blocks(text: string): [string[], ...string[][]] {
  const found = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) =>
    m[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#\s.*$/, '').trim())
      .filter((line) => line && !line.startsWith('#')),
  )
  if (!found.length) throw new Error(`no sh block in:\n${text}`)
  return found as [string[], ...string[][]]
}

let work: string
let prefix: string
let project: string

/** A shell of a machine with only Node: this node and npm, the test's prefix first, a HOME of its own. */
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: [join(prefix, 'bin'), dirname(process.execPath), process.env.PATH].join(delimiter),
  HOME: join(work, 'home'),
  npm_config_prefix: prefix,
  npm_config_cache: join(work, 'npm-cache'),
  // The tarball has no dependencies: nothing to fetch, so no registry is asked.
  npm_config_offline: 'true',
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  ...extra,
})

interface Ran {
  line: string
  code: number
  stdout: string
  stderr: string
}

/** One README line, run by sh in `cwd`. */
function sh(line: string, cwd: string, extra: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', line], { cwd, env: env(extra), maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ line, code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}

/** Each line in turn; every one must succeed. */
async function runAll(
  lines: string[],
  cwd: string,
  extra: Record<string, string> = {},
  substitute: (line: string, before: Ran[]) => string = (line) => line,
): Promise<Ran[]> {
  const done: Ran[] = []
  for (const written of lines) {
    const line = substitute(written, done)
    // A placeholder left in would be typed by nobody: the test must know what replaces it.
    expect(line, written).not.toMatch(/<[a-z]+(?:[ -][a-z]+)+>|…/)
    const ran = await sh(line, cwd, extra)
    expect(ran.code, `${line}\n${ran.stdout}\n${ran.stderr}`).toBe(0)
    done.push(ran)
  }
  return done
}

/** A `folio serve …` line of the README, started in `cwd` (exec: Ctrl+C reaches folio itself), once its banner is out. */
async function serve(line: string, cwd: string) {
  expect(line).toMatch(/^folio serve\b/)
  const run = await untilBanner(spawn('sh', ['-c', `exec ${line}`], { cwd, env: env({ PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] }), line)
  return {
    ...run,
    async stop() {
      const code = await run.stop()
      expect(run.stderr()).toContain('Stopped.')
      return code
    },
  }
}

let installed: Ran[]

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-first-steps-'))
  prefix = join(work, 'prefix')
  await mkdir(join(work, 'home'))
  // A copy of the repository, so the dist/ the other test files run is never rebuilt under them.
  project = join(work, 'folio')
  await cp(ROOT, project, { recursive: true, filter: (source) => dirname(source) !== ROOT || !NOT_COPIED.has(basename(source)) })
  // The build tools of the working tree build the copy, as `npm install` would have put them there.
  await symlink(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir')
  const [install] = blocks(section('Install the folio command'))
  installed = await runAll(install!, project)
}, 240_000)

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

describe('README: Install the folio command', () => {
  it('packs the built CLI and installs the folio command from the tarball, with only Node', async () => {
    expect(installed.map((r) => r.line)).toEqual(['npm pack', 'npm install -g ./folio-cli-*.tgz'])
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version
    expect(installed[0]!.stdout).toContain(`folio-cli-${version}.tgz`)
    // The tarball carries the bundle prepack built (there was no dist/ in the copy).
    expect(existsSync(join(prefix, 'lib', 'node_modules', 'folio-cli', 'dist', 'cli.mjs'))).toBe(true)
    const ran = await sh('folio --version', work)
    expect(ran).toMatchObject({ code: 0, stdout: `${version}\n` })
  })

  it('names the registry commands as what works once the package is published', () => {
    const text = section('Install the folio command')
    expect(text).toMatch(/Once it is published on npm \(it is not yet\)[^.]*`npm i -g folio-cli`[^.]*`npx folio-cli serve`/)
  })
})

describe('README: First steps (OSS)', () => {
  it('serves, publishes a folder of pages, lists it; the share URL answers', async () => {
    const [[serveLine, ...rest], steps] = blocks(section('First steps'))
    expect(rest).toEqual([])
    const place = join(work, 'oss')
    await mkdir(place)
    const server = await serve(serveLine!, place)
    try {
      expect(server.banner).toContain(`  ➜ Data:     ${join(place, '.folio')} (oss mode)`)
      const site = join(work, 'q3-review')
      await mkdir(site)
      await writeFile(join(site, 'index.html'), '<h1>Q3</h1>')
      const [created, listed] = await runAll(steps!, site, { FOLIO_URL: server.url })
      expect(steps).toEqual(['folio create --dir . --publish', 'folio list'])
      expect(created!.stdout).toMatch(/\bpublished\b/)
      const share = /^Share: (\S+)$/m.exec(created!.stdout)?.[1] ?? expect.fail(`no share URL in:\n${created!.stdout}`)
      expect(share.startsWith(`${server.url}/share/`)).toBe(true)
      const id = share.slice(`${server.url}/share/`.length)
      expect(id).toMatch(/^[\w-]+$/)
      expect((await fetch(share)).status).toBe(200)
      expect(listed!.stdout).toMatch(new RegExp(`^${id}\\s.*\\bpublished\\s+v1\\b`, 'm'))
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })
})

describe('README: Cloud mode', () => {
  it('serves, makes the first workspace as written, logs in with its key, publishes, and runs the operator commands', async () => {
    const [[serveLine, ...rest], steps] = blocks(section('Cloud mode'))
    expect(rest).toEqual([])
    const place = join(work, 'cloud')
    await mkdir(place)
    const server = await serve(serveLine!, place)
    try {
      // Its banner says the same first step (with the name left to the operator).
      expect(server.banner).toContain('\n  folio admin workspace create --name "My team"\n')
      expect(server.banner).toContain(`\n  folio login --server ${server.url} --key <the key it printed>\n`)
      const done = await runAll(steps!, place, {}, (line, before) => {
        const made = before.find((r) => r.line.startsWith('folio admin workspace create'))?.stdout ?? ''
        return line
          .replace('http://127.0.0.1:3000', server.url)
          .replace('folio_live_…', /^folio_live_\w+$/m.exec(made)?.[0] ?? 'folio_live_…')
          .replace('<workspace-id>', /^Workspace .+ \((\S+)\), plan/m.exec(made)?.[1] ?? '<workspace-id>')
      })
      const byCommand = (start: string) => done.find((r) => r.line.startsWith(start))!
      expect(byCommand('folio admin workspace create').stdout).toMatch(/^Workspace Acme \(\S+\), plan pro\.$/m)
      const share = /^Share: (\S+)$/m.exec(byCommand('folio create').stdout)![1]!
      expect(share.startsWith(`${server.url}/share/`)).toBe(true)
      expect((await fetch(share)).status).toBe(200)
      expect(byCommand('folio admin workspace list').stdout).toMatch(/\bAcme\s+pro\s+1\s+active\b/)
      expect(byCommand('folio admin workspace plan').stdout).toMatch(/^Acme \(\S+\) is on the team plan now\.$/m)
      expect(byCommand('folio admin usage').stdout).toMatch(/\bAcme\s+team\b/)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })
})
