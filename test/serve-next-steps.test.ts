import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BIN, killHard, untilBanner } from './helpers/cli-process.js'

/**
 * What folio serve tells a newcomer to do next, checked by doing it: a Cloud server names the
 * operator's command that makes the first workspace (with the --data it needs) and the login
 * that follows; a taken port is answered with a port that is free.
 */

const dirs: string[] = []
const children: ChildProcess[] = []
const blockers: Server[] = []
afterAll(async () => {
  for (const child of children) await killHard(child)
  for (const blocker of blockers) blocker.close()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

async function scratch(name = 'folio-next-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), name))
  dirs.push(dir)
  return dir
}

/** A shell whose `folio` is this working tree's CLI, with a config dir of its own. */
async function shellEnv(): Promise<NodeJS.ProcessEnv> {
  const bin = await scratch('folio-bin-')
  await writeFile(join(bin, 'folio'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 })
  return {
    PATH: [bin, dirname(process.execPath), process.env.PATH].join(delimiter),
    HOME: await scratch('folio-home-'),
    npm_lifecycle_event: '',
  }
}

/** A command line as printed, run by sh in `cwd`. */
function sh(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', line], { cwd, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}

/** `folio serve <args>` in `cwd`, once its banner is out. */
async function serve(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  const run = await untilBanner(child, 'folio serve')
  return { url: run.url, stdout: run.banner, stop: run.stop }
}

/** The Next: block's commands (the lines under it, up to Press Ctrl+C). */
const nextCommands = (banner: string) =>
  /^Next: .*\n((?: {2}.+\n)+)Press Ctrl\+C/m
    .exec(banner)![1]!
    .trimEnd()
    .split('\n')
    .map((line) => line.trim())

describe('a Cloud server’s banner', () => {
  it('in a folder of its own: make the first workspace, log in with its key, publish; each works as printed', async () => {
    const env = await shellEnv()
    const place = await scratch()
    const server = await serve(['--mode', 'cloud', '--port', '0'], place, env)
    expect(server.stdout).toContain('Next: make the first workspace (it prints the workspace’s API key, once), then sign in with that key:\n')
    const [admin, login, create] = nextCommands(server.stdout)
    // ./.folio is where folio admin looks by default: no --data.
    expect(admin).toBe('folio admin workspace create --name "My team"')
    expect(login).toBe(`folio login --server ${server.url} --key <the key it printed>`)
    expect(create).toBe('folio create --dir . --publish')
    expect(server.stdout).not.toContain('--publish --server')

    const made = await sh(admin!, place, env)
    expect(made.code, made.stderr).toBe(0)
    const key = /^folio_live_\w+$/m.exec(made.stdout)![0]
    const saved = await sh(login!.replace('<the key it printed>', key), place, env)
    expect(saved.code, saved.stderr).toBe(0)
    const site = join(place, 'site')
    await mkdir(site)
    await writeFile(join(site, 'index.html'), '<h1>Team</h1>')
    const published = await sh(create!, site, env)
    expect(published.code, published.stderr).toBe(0)
    const share = /^Share: (\S+)$/m.exec(published.stdout)![1]!
    expect(share.startsWith(`${server.url}/share/`)).toBe(true)
    expect((await fetch(share)).status).toBe(200)
    expect(await server.stop()).toBe(0)
  })

  it('with its data elsewhere: the admin command names that folder, and works from any folder', async () => {
    const env = await shellEnv()
    const data = join(await scratch(), 'team data')
    const server = await serve(['--mode', 'cloud', '--port', '0', '--data', data], await scratch(), env)
    const [admin] = nextCommands(server.stdout)
    expect(admin).toBe(`folio admin workspace create --name "My team" --data '${data}'`)
    const made = await sh(admin!, await scratch(), env)
    expect(made.code, made.stderr).toBe(0)
    expect(made.stdout).toMatch(/^Workspace My team \(\S+\), plan free\.$/m)
    expect(await server.stop()).toBe(0)
  })

  it('an OSS server’s banner keeps its one next step', async () => {
    const env = await shellEnv()
    const server = await serve(['--port', '0'], await scratch(), env)
    expect(server.stdout).toContain(`\nNext: folio create --dir . --publish --server ${server.url}\nPress Ctrl+C to stop.\n`)
    expect(await server.stop()).toBe(0)
  })
})

/** Listens on `port` on 127.0.0.1 if it can; the server stays open until the file ends. */
async function hold(port: number): Promise<number | undefined> {
  const blocker = createServer()
  const ok = await new Promise<boolean>((resolve) => {
    blocker.once('error', () => resolve(false))
    blocker.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(true))
  })
  if (!ok) return undefined
  blockers.push(blocker)
  return (blocker.address() as { port: number }).port
}

const canListen = async (port: number) => {
  const probe = createServer()
  const ok = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false))
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(true))
  })
  if (ok) await new Promise((resolve) => probe.close(resolve))
  return ok
}

const serveOn = (port: number, env: NodeJS.ProcessEnv, data: string) =>
  new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, 'serve', '--port', String(port), '--data', data], { env }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code) : 0, stderr }),
    )
  })

describe('a taken port', () => {
  it('is answered with a port that is free (the next one is taken too)', async () => {
    const env = await shellEnv()
    const port = (await hold(0))!
    // Its neighbour too, when nobody else has it already: taken either way.
    await hold(port + 1)
    const { code, stderr } = await serveOn(port, env, await scratch())
    expect(code).toBe(1)
    const suggested = Number(
      new RegExp(
        `^folio: Port ${port} is already in use\\. Stop the other server or start this one with --port (\\d+) \\(free just now\\), or --port 0 for any free port\\.$`,
        'm',
      ).exec(stderr)?.[1],
    )
    expect(suggested).toBeGreaterThan(port + 1)
    expect(await canListen(suggested)).toBe(true)
  })

  it('with no free port near it, says --port 0', async () => {
    const env = await shellEnv()
    // A run of 21 ports nobody holds, then all of them held.
    let port: number | undefined
    while (port === undefined) {
      const first = (await hold(0))!
      if (first + 20 > 65535) continue
      let all = true
      for (let next = first + 1; next <= first + 20 && all; next++) all = (await hold(next)) !== undefined
      if (all) port = first
    }
    const { code, stderr } = await serveOn(port, env, await scratch())
    expect(code).toBe(1)
    expect(stderr).toBe(`folio: Port ${port} is already in use. Stop the other server or start this one with --port 0 (any free port).\n`)
  })
})
