import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { BIN, killHard, spawnServer, type ServerProcess } from './helpers/cli-process.js'
import { getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { testApi } from './helpers/api.js'
import { makeDataDir } from './helpers/server.js'

const run = promisify(execFile)
const folio = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  )

const children: ServerProcess[] = []
const dirs: string[] = []
afterAll(async () => {
  for (const c of children) await killHard(c.child)
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
    for (const option of ['--port', '--host', '--data', '--mode', '--json', 'Examples:', 'SIGTERM']) expect(stdout).toContain(option)
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
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, PORT: String(port), FOLIO_DATA: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push({ url: '', child, output: () => '', stderr: () => '' })
    let out = ''
    let log = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (log += d))
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => out.includes('Press Ctrl+C') && resolve())
      child.once('exit', () => reject(new Error(out)))
    })
    expect(out).toContain(`http://127.0.0.1:${port}`)
    expect(out).toContain(dataDir)
    expect((await testApi(`http://127.0.0.1:${port}`).send(listFolios)).status).toBe(200)
    expect(existsSync(join(dataDir, 'format.json'))).toBe(true)
    const exited = once(child, 'exit')
    child.kill('SIGINT')
    expect((await exited)[0]).toBe(0)
    expect(out).toContain('Stopped.')
    expect(log).toBe('')
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
