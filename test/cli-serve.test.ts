import { packageVersion } from '../src/version.js'
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { BIN, killHard, lanAddresses, type ServeRun, spawnServer, type ServerProcess, startServe } from './helpers/cli-process.js'
import { getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { testApi } from './helpers/api.js'
import { cliEnv } from './helpers/cli.js'
import { makeDataDir } from './helpers/server.js'

const run = promisify(execFile)
const folio = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  )

const children: ServerProcess[] = []
const runs: ServeRun[] = []
const dirs: string[] = []
afterAll(async () => {
  for (const c of children) await killHard(c.child)
  for (const r of runs) await killHard(r.child)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

describe('folio --help', () => {
  it('teaches the commands with examples', async () => {
    const { code, stdout } = await folio(['--help'])
    expect(code).toBe(0)
    expect(stdout).toContain('serve')
    expect(stdout).toContain('Examples:')
    expect(stdout).toContain('FOLIO_API_KEY')
  })

  it('teaches every option of serve with an example', async () => {
    const { code, stdout } = await folio(['serve', '--help'])
    expect(code).toBe(0)
    for (const option of ['--port', '--host', '--data', '--mode', '--trust-proxy', '--json', 'Examples:', 'SIGTERM']) expect(stdout).toContain(option)
  })

  it('fails clearly on a typo and on a bad option value', async () => {
    const typo = await folio(['serv'])
    expect(typo.code).not.toBe(0)
    expect(typo.stderr).toContain('serve')
    const port = await folio(['serve', '--port', '99999'])
    expect(port.code).not.toBe(0)
    expect(port.stderr).toMatch(/port/i)
    const mode = await folio(['serve', '--mode', 'galaxy'])
    expect(mode.code).not.toBe(0)
    expect(mode.stderr).toContain('oss')
  })
})

describe('folio serve', () => {
  it('trusts X-Forwarded-For only when told to: then a request carrying one came through the proxy, not from this machine', async () => {
    const asProxied = (url: string) => testApi(url).send(listFolios, { headers: { 'x-forwarded-for': '203.0.113.5' } })
    for (const [args, env, expected] of [
      [[], {}, 200],
      [['--trust-proxy'], {}, 401],
      [[], { FOLIO_TRUST_PROXY: '1' }, 401],
    ] as Array<[string[], Record<string, string>, number]>) {
      const dataDir = await makeDataDir()
      dirs.push(dataDir)
      const server = await spawnServer(dataDir, args, env)
      children.push(server)
      expect((await asProxied(server.url)).status, JSON.stringify([args, env])).toBe(expected)
      expect((await testApi(server.url).send(listFolios)).status).toBe(200)
      await killHard(server.child)
    }
    const scratch = await makeDataDir()
    dirs.push(scratch)
    const bad = await folio(['serve', '--port', '0', '--data', scratch], { FOLIO_TRUST_PROXY: 'maybe' })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('FOLIO_TRUST_PROXY: "maybe" is not 1/true/yes or 0/false/no')
  })

  it('says what to do when the port is taken', async () => {
    const blocker = createServer().listen(0, '127.0.0.1')
    await once(blocker, 'listening')
    const port = (blocker.address() as { port: number }).port
    const dataDir = await makeDataDir()
    dirs.push(dataDir)
    const { code, stderr } = await folio(['serve', '--port', String(port), '--data', dataDir])
    blocker.close()
    expect(code).toBe(1)
    expect(stderr).toContain(`Port ${port} is already in use`)
    expect(stderr).toContain('--port')
  })

  it('uses PORT and FOLIO_DATA as defaults', async () => {
    const probe = createServer().listen(0, '127.0.0.1')
    await once(probe, 'listening')
    const port = (probe.address() as { port: number }).port
    await new Promise((r) => probe.close(r))
    const dataDir = await makeDataDir()
    dirs.push(dataDir)
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, PORT: String(port), FOLIO_DATA: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push({ url: '', child, output: () => '', stderr: () => '' })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => out.includes('Press Ctrl+C') && resolve())
      child.once('exit', () => reject(new Error(out)))
    })
    expect(out).toContain(`http://127.0.0.1:${port}`)
    expect(out).toContain(dataDir)
    expect((await testApi(`http://127.0.0.1:${port}`).send(listFolios)).status).toBe(200)
    const exited = once(child, 'exit')
    child.kill('SIGINT')
    expect((await exited)[0]).toBe(0)
    // A clean stop leaves everything in the files.
    expect(existsSync(join(dataDir, 'format.json'))).toBe(true)
    // The banner is the result (stdout); notes go to stderr.
    expect(err).toBe('SIGINT: finishing in-flight requests…\nStopped.\n')
  })

  it('finishes in-flight writes on SIGTERM, exits 0 and releases the data dir', async () => {
    const dataDir = await makeDataDir()
    dirs.push(dataDir)
    const server = await spawnServer(dataDir)
    children.push(server)
    const api = testApi(server.url)
    const id = await api.create('Shutdown')
    const big = (i: number) => ({ files: { 'index.html': `<h1>${i}</h1>${'<p>x</p>'.repeat(100_000)}` } })
    const writes = Array.from({ length: 10 }, (_, i) => api.send(updateFolio, { params: { id }, body: big(i) }).catch((e: Error) => e))
    await new Promise((r) => setTimeout(r, 30))
    const exited = once(server.child, 'exit')
    server.child.kill('SIGTERM')
    const [code] = await exited
    expect(code).toBe(0)
    expect(server.stderr()).toBe('')
    const results = await Promise.all(writes)
    const acked = results.filter((r): r is Exclude<typeof r, Error> => !(r instanceof Error) && r.status === 200)
    expect(acked.length).toBeGreaterThan(0)
    expect(existsSync(join(dataDir, 'folio.lock'))).toBe(false)

    const again = await spawnServer(dataDir)
    children.push(again)
    const full = (await testApi(again.url).send(getFolio, { params: { id }, query: { files: 'none' } })).body
    for (const reply of acked) expect(full.versions.map((v: any) => v.versionId)).toContain(reply.body.project.latestVersionId)
    await killHard(again.child)
    expect(again.stderr()).toBe('')
  })
})

/** `folio serve <args>` on a fresh data dir (its own port unless args say otherwise). */
async function serve(args: string[], env: Record<string, string> = {}) {
  const dataDir = await makeDataDir()
  dirs.push(dataDir)
  const run = await startServe(['--data', dataDir, ...args], env)
  runs.push(run)
  return { run, dataDir, port: Number(new URL(run.url).port) }
}

describe('folio serve: the banner', () => {
  it('on loopback: the address, where the data is, the next step; no warning', async () => {
    const { run, dataDir } = await serve(['--port', '0'])
    const { url } = run
    expect(run.stdout()).toBe(
      [
        `folio is serving ${url}`,
        '',
        `  ➜ Local:    ${url}`,
        '  ➜ Network:  this machine only; --host 0.0.0.0 opens it to your network',
        `  ➜ API:      ${url}/api/openapi`,
        `  ➜ Data:     ${dataDir} (oss mode)`,
        `  ➜ Version:  ${packageVersion()} (Node ${process.version})`,
        '',
        // Not the CLI's default server (3000): the next step names it.
        `Next: folio create --dir . --publish --server ${url}`,
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    )
    expect(run.stderr()).toBe('')
    expect(await run.stop()).toBe(0)
  })

  it('its next step works as printed: run in a folder, it publishes the folder under its page’s title', async () => {
    const { run: server } = await serve(['--port', '0'])
    const next = /^Next: folio (.+)$/m.exec(server.stdout())![1]!.split(' ')
    expect(next.slice(0, 4)).toEqual(['create', '--dir', '.', '--publish'])
    const folder = join(await makeDataDir(), 'launch-notes')
    dirs.push(dirname(folder))
    await mkdir(folder)
    await writeFile(join(folder, 'index.html'), '<h1>Launch</h1>')
    const created = await run(process.execPath, [BIN, ...next, '--json'], { cwd: folder, env: cliEnv() })
    const { id, status } = JSON.parse(created.stdout)
    expect(status).toBe('published')
    const stored = (await testApi(server.url).send(getFolio, { params: { id }, query: { files: 'latest' } })).body
    // Issue 26: titled from the page (its first heading here); the folder's name only when the page has none.
    expect(stored.title).toBe('Launch')
    expect(Object.keys(stored.versions.at(-1).files)).toEqual(['index.html'])
    // With no folder or file to name it after, a title is asked for.
    const untitled = await folio(['create', '--server', server.url])
    expect(untitled.code).not.toBe(0)
    expect(untitled.stderr).toBe(
      'folio: Give the folio a title, e.g. folio create "Q3 review", or --dir/--html to take its page’s title (else the folder’s or file’s name).\n',
    )
    expect(await server.stop()).toBe(0)
  })

  it('beyond loopback: network addresses that need the key, and a warning on stderr', async () => {
    const { run, port } = await serve(['--port', '0', '--host', '0.0.0.0'])
    const addresses = lanAddresses()
    expect(addresses.length).toBeGreaterThan(0)
    const stdout = run.stdout()
    expect(stdout).toContain(`folio is serving http://localhost:${port}\n`)
    for (const address of addresses) expect(stdout).toContain(`  ➜ Network:  http://${address}:${port}\n`)
    expect(stdout).toContain('network addresses need the API key: folio keys show prints it')
    // No QR code without a terminal (test/serve-terminal.test.ts shows one in tmux).
    expect(stdout).not.toMatch(/[▀▄█]/)
    expect(run.stderr()).toBe(
      'folio: listening on 0.0.0.0: other machines can reach this server. Network addresses need the API key (folio keys show prints it).\n',
    )
    // As the warning says: another machine (here, this one's network address) needs the key.
    expect((await testApi(`http://${addresses[0]}:${port}`).send(listFolios)).status).toBe(401)
    expect((await testApi(`http://127.0.0.1:${port}`).send(listFolios)).status).toBe(200)
    expect(await run.stop()).toBe(0)
  })

  it('with --json: one JSON line with the network addresses; the warning still on stderr', async () => {
    const { run, port } = await serve(['--port', '0', '--host', '0.0.0.0', '--json'])
    const lines = run.stdout().trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({ url: `http://localhost:${port}`, mode: 'oss', networkUrls: lanAddresses().map((a) => `http://${a}:${port}`) })
    expect(run.stderr()).toMatch(/^folio: listening on 0\.0\.0\.0: .*\n$/)
    expect(await run.stop()).toBe(0)
  })

  it('--open opens the dashboard with $BROWSER, and says so when no browser opens', async () => {
    const scratch = await makeDataDir()
    dirs.push(scratch)
    const browser = join(scratch, 'browser.sh')
    await writeFile(browser, `#!/bin/sh\necho "$1" > ${JSON.stringify(join(scratch, 'opened'))}\n`)
    await chmod(browser, 0o755)
    const { run } = await serve(['--port', '0', '--open'], { BROWSER: browser })
    const until = Date.now() + 10_000
    while (!existsSync(join(scratch, 'opened')) && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    expect(await readFile(join(scratch, 'opened'), 'utf8')).toBe(`${run.url}\n`)
    expect(await run.stop()).toBe(0)
    expect(run.stderr()).not.toContain('no browser')

    const missing = await serve(['--port', '0', '--open'], { BROWSER: join(scratch, 'no-such-browser') })
    const until2 = Date.now() + 10_000
    while (!missing.run.stderr().includes('no browser') && Date.now() < until2) await new Promise((r) => setTimeout(r, 50))
    expect(missing.run.stderr()).toBe(`folio: no browser could be opened (set BROWSER to choose one); the dashboard is at ${missing.run.url}\n`)
    expect(await missing.run.stop()).toBe(0)
  })
})

describe('folio serve: the port', () => {
  it('takes a free one when nobody chose it and 3000 is taken, and says so', async () => {
    const blocker = createServer()
    // Ours, or someone else's already: taken either way.
    await new Promise<void>((resolve) => {
      blocker.once('error', () => resolve())
      blocker.listen(3000, '127.0.0.1', () => resolve())
    })
    try {
      const { run, port } = await serve(['--json'], { PORT: '' })
      expect(port).not.toBe(3000)
      expect(run.stderr()).toBe(`folio: port 3000 is in use, so this server listens on ${port} (choose one with --port).\n`)
      expect((await testApi(run.url).send(listFolios)).status).toBe(200)
      expect(await run.stop()).toBe(0)
    } finally {
      blocker.close()
    }
  })

  it('says when the host is the problem, not the port', async () => {
    const dataDir = await makeDataDir()
    dirs.push(dataDir)
    // TEST-NET-3: an address no interface of this machine has.
    const { code, stderr } = await folio(['serve', '--data', dataDir, '--host', '203.0.113.7'])
    expect(code).toBe(1)
    expect(stderr).toBe('folio: Cannot listen on 203.0.113.7: no network interface of this machine has that address.\n')
  })

  it('refuses a taken port that PORT names, as it does --port', async () => {
    const blocker = createServer().listen(0, '127.0.0.1')
    await once(blocker, 'listening')
    const port = (blocker.address() as { port: number }).port
    const dataDir = await makeDataDir()
    dirs.push(dataDir)
    const { code, stdout, stderr } = await folio(['serve', '--data', dataDir], { PORT: String(port) })
    blocker.close()
    expect(code).toBe(1)
    expect(stdout).toBe('')
    // The port it suggests instead is one that was free when it looked (test/serve-next-steps.test.ts).
    expect(stderr).toMatch(
      new RegExp(
        `^folio: Port ${port} is already in use\\. Stop the other server or start this one with --port \\d+ \\(free just now\\), or --port 0 for any free port\\.\n$`,
      ),
    )
  })
})
