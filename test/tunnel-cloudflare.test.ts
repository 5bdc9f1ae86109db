import { createReadStream, existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERRORS } from '../src/api/errors.js'
import { updateFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { controlTunnel, getTunnel } from '../src/api/tunnel.js'
import type { ConfigOverrides } from '../src/server/config.js'
import { cloudflaredAsset } from '../src/tunnel/cloudflared-binary.js'
import { testApi } from './helpers/api.js'
import { runCli } from './helpers/cli.js'
import { startServe } from './helpers/cli-process.js'
import { type LoopbackTunnelServer, startLoopbackTunnelServer } from './helpers/localtunnel-server.js'
import { startTestServer } from './helpers/server.js'
import { useServer } from './helpers/use-server.js'

/**
 * The Cloudflare provider drives the real executable interface (`cloudflared tunnel --url …`,
 * its banner on stderr, its exit) of a stand-in that the test provides (helpers/fake-cloudflared.mjs):
 * Cloudflare's edge is the one part that cannot run here. The stand-in's edge sets CF-Connecting-IP
 * to the viewer's address, so viewers at 127.0.0.2 and 127.0.0.3 are two people on the Internet.
 */
const FAKE = fileURLToPath(new URL('./helpers/fake-cloudflared.mjs', import.meta.url))
const KEY = 'right-key-for-the-board'
let work: string
let pidFile: string
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-cloudflare-'))
  pidFile = join(work, 'pids')
  process.env.FOLIO_CLOUDFLARED = FAKE
  process.env.FAKE_CLOUDFLARED_PIDS = pidFile
})
afterAll(async () => {
  delete process.env.FOLIO_CLOUDFLARED
  delete process.env.FAKE_CLOUDFLARED_PIDS
  await rm(work, { recursive: true, force: true })
})

const s = useServer({ config: { rateLimits: { public: 5 }, tunnel: { startTimeoutMs: 5_000 } } })

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** One request from a viewer at `localAddress` (its own connection: the edge sees that address). */
function viewerRequest(url: string, localAddress: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'GET', localAddress, agent: false, headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers } },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end(init.body)
  })
}

const remaining = (answer: Answer) => Number(answer.headers['x-ratelimit-remaining'])
const pidsStarted = () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number) : [])
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('the Cloudflare tunnel (a stand-in cloudflared)', () => {
  it('starts, says viewers meet no page in between, and stops with its process', async () => {
    const started = await s.api.send(controlTunnel, { body: { action: 'start', provider: 'cloudflare' } })
    expect(started.status).toBe(200)
    expect(started.body).toMatchObject({
      success: true,
      provider: 'cloudflare',
      viewerPassword: null,
      viewerNotice: 'Viewers open the link straight away: Cloudflare shows no page in between.',
    })
    const url = started.body.url as string
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await s.api.send(getTunnel)).body).toMatchObject({ active: true, state: 'connected', url, provider: 'cloudflare', previousUrl: null })
    const viaEdge = await viewerRequest(`${url}/healthz`, '127.0.0.2')
    expect(viaEdge.status).toBe(200)

    const [pid] = pidsStarted().slice(-1)
    expect(alive(pid!)).toBe(true)
    expect((await s.api.send(controlTunnel, { body: { action: 'stop' } })).status).toBe(200)
    // stop() resolves once the process is gone.
    expect(alive(pid!)).toBe(false)
    // The choice is remembered: a start that names no provider uses it again.
    expect((await s.api.send(getTunnel)).body).toMatchObject({ state: 'stopped', provider: 'cloudflare' })
  })

  it('counts each viewer apart through the tunnel, and nobody apart on the main listener whatever CF-Connecting-IP says', async () => {
    const id = await s.api.create('Shared deck', { 'index.html': '<h1>Hi</h1>' }, { status: 'published' })
    const { url } = (await s.api.send(controlTunnel, { body: { action: 'start' } })).body as { url: string; provider: string }
    try {
      const publicUrl = (base: string) => `${base}/api/files/${id}/public`
      const first = [
        await viewerRequest(publicUrl(url), '127.0.0.2'),
        await viewerRequest(publicUrl(url), '127.0.0.2'),
        await viewerRequest(publicUrl(url), '127.0.0.2'),
      ]
      expect(first.map((a) => a.status)).toEqual([200, 200, 200])
      expect(first.map((a) => a.headers['x-ratelimit-limit'])).toEqual(['5', '5', '5'])
      expect(first.map(remaining)).toEqual([4, 3, 2])
      // Another viewer starts a window of their own.
      expect(remaining(await viewerRequest(publicUrl(url), '127.0.0.3'))).toBe(4)

      // The main listener: the header is whatever the client wrote, so it changes nothing.
      const main = testApi(s.ts.url)
      const spoofed: number[] = []
      for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        const reply = await main.send(getPublicFolio, { params: { id }, headers: { 'cf-connecting-ip': ip } })
        spoofed.push(Number(reply.headers.get('x-ratelimit-remaining')))
      }
      expect(spoofed).toEqual([4, 3, 2])
    } finally {
      await s.api.send(controlTunnel, { body: { action: 'stop' } })
    }
  })

  it('gives each viewer their own wrong-key budget: a guesser never holds back a viewer with the right key', async () => {
    const id = await s.api.create('Board pack', { 'index.html': '<h1>Numbers</h1>' }, { status: 'published' })
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: KEY } })
    const { url } = (await s.api.send(controlTunnel, { body: { action: 'start', provider: 'cloudflare' } })).body as { url: string }
    try {
      const guess = (localAddress: string, accessKey: string) =>
        viewerRequest(`${url}/api/files/${id}/public`, localAddress, { method: 'POST', body: JSON.stringify({ accessKey }) })
      const wrong = await Promise.all(Array.from({ length: 12 }, (_, n) => guess('127.0.0.2', `wrong ${n}`)))
      // The spec answers a wrong key 200 {success: false}; past the guesser's budget, 429.
      expect(wrong.filter((a) => a.status === 429).length).toBeGreaterThan(0)
      expect(wrong.filter((a) => a.status !== 429).map((a) => JSON.parse(a.body))).toEqual(
        Array(wrong.filter((a) => a.status !== 429).length).fill({ success: false }),
      )
      const started = performance.now()
      const right = await guess('127.0.0.3', KEY)
      expect([right.status, JSON.parse(right.body)]).toEqual([200, { success: true }])
      expect(performance.now() - started).toBeLessThan(2_000)
    } finally {
      await s.api.send(controlTunnel, { body: { action: 'stop' } })
    }
  })

  it('comes back by itself when cloudflared dies, and says the URL changed', async () => {
    const { url } = (await s.api.send(controlTunnel, { body: { action: 'start', provider: 'cloudflare' } })).body as { url: string }
    const [pid] = pidsStarted().slice(-1)
    process.kill(pid!, 'SIGKILL')
    // Lost (reconnecting), then connected again at a quick tunnel's new URL.
    const newUrl = async () => {
      const { url: now } = (await s.api.send(getTunnel)).body as { url: string | null }
      return now !== null && now !== url
    }
    await expect.poll(newUrl, { timeout: 15_000 }).toBe(true)
    const after = (await s.api.send(getTunnel)).body
    expect(after).toMatchObject({ state: 'connected', previousUrl: url })
    expect((await viewerRequest(`${after.url}/healthz`, '127.0.0.2')).status).toBe(200)
    await s.api.send(controlTunnel, { body: { action: 'stop' } })
    expect(pidsStarted().filter(alive)).toEqual([])
    const lines = s.ts.logs.splice(0).map((line) => line.split('\n')[0]!)
    expect(lines.some((line) => line.includes('Tunnel lost (cloudflared was killed (SIGKILL)'))).toBe(true)
    expect(lines.some((line) => line.includes(`The tunnel's public URL changed from ${url} to ${after.url}`))).toBe(true)
  })

  it('fails with what to do when cloudflared cannot run', async () => {
    process.env.FAKE_CLOUDFLARED_FAIL =
      'failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": dial tcp: lookup api.trycloudflare.com: no such host'
    try {
      const refused = await s.api.send(controlTunnel, { body: { action: 'start', provider: 'cloudflare' } })
      expect(refused.status).toBe(500)
      expect(refused.body.error).toBe(ERRORS.tunnelFailed.error)
      expect(refused.body.message).toMatch(/^cloudflared exited with code 1 before the tunnel was open: .*ERR failed to request quick Tunnel/)
      expect((await s.api.send(getTunnel)).body).toMatchObject({ state: 'stopped', lastError: expect.stringContaining('cloudflared exited with code 1') })
    } finally {
      delete process.env.FAKE_CLOUDFLARED_FAIL
      s.ts.logs.splice(0)
    }
  })
})

describe('localtunnel through a tunnel server', () => {
  let relay: LoopbackTunnelServer
  let passwordPage: Server
  let passwordUrl = ''
  beforeAll(async () => {
    relay = await startLoopbackTunnelServer()
    passwordPage = createServer((req, res) => {
      if (req.url !== '/mytunnelpassword') return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'text/plain' }).end('203.0.113.7')
    })
    await new Promise<void>((resolve) => passwordPage.listen(0, '127.0.0.1', resolve))
    passwordUrl = `http://127.0.0.1:${(passwordPage.address() as AddressInfo).port}/mytunnelpassword`
  })
  afterAll(async () => {
    await relay?.close()
    await new Promise((resolve) => passwordPage?.close(resolve))
  })

  it("claims nothing about a server without the reminder page, and tells the viewers' password of one that has it", async () => {
    const plain = useServerNow({ tunnel: { host: relay.url, startTimeoutMs: 5_000 } })
    const walled = useServerNow({ tunnel: { host: relay.url, startTimeoutMs: 5_000, passwordUrl } })
    const [a, b] = await Promise.all([plain, walled])
    try {
      const none = await a.api.send(controlTunnel, { body: { action: 'start', provider: 'localtunnel' } })
      expect(none.body).toMatchObject({ provider: 'localtunnel', viewerPassword: null, viewerNotice: null })
      const wall = await b.api.send(controlTunnel, { body: { action: 'start' } })
      expect(wall.body).toMatchObject({ provider: 'localtunnel', viewerPassword: '203.0.113.7' })
      expect(wall.body.viewerNotice).toBe(
        "Viewers who open the link in a browser first see localtunnel's reminder page (once per viewer's address every 7 days): tell them the tunnel password is 203.0.113.7.",
      )
      expect((await b.api.send(getTunnel)).body).toMatchObject({ viewerPassword: '203.0.113.7', state: 'connected' })
      // The CLI shows it to the author.
      const status = await runCli(['tunnel', 'status', '--server', b.ts.url])
      expect(status.stdout).toContain("Tunnel password: 203.0.113.7 (localtunnel's reminder page asks viewers for it once)")
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})

/** A server of one test, closed by it. */
async function useServerNow(config: ConfigOverrides) {
  const ts = await startTestServer({ config })
  return { ts, api: testApi(ts.url), close: () => ts.close() }
}

describe('folio tunnel and folio serve with Cloudflare (real processes)', () => {
  it('downloads cloudflared only when told to, with progress, then starts; a stopped folio leaves no cloudflared behind', async () => {
    // Cloudflare's release assets, served here: the download is the real HTTP path, into a cache of the test's own.
    const releases = createServer((req, res) => {
      if (req.url !== `/${cloudflaredAsset()}`) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-length': String(readFileSync(FAKE).length) })
      createReadStream(FAKE).pipe(res)
    })
    await new Promise<void>((resolve) => releases.listen(0, '127.0.0.1', resolve))
    const cache = join(work, 'cache')
    const pids = join(work, 'serve-pids')
    await writeFile(pids, '')
    const env = {
      FOLIO_CLOUDFLARED: '',
      XDG_CACHE_HOME: cache,
      PATH: '/usr/bin:/bin',
      FOLIO_CLOUDFLARED_RELEASES: `http://127.0.0.1:${(releases.address() as AddressInfo).port}`,
      FAKE_CLOUDFLARED_PIDS: pids,
    }
    const data = join(work, 'data')
    const serve = await startServe(['--port', '0', '--data', data], { ...env, PATH: `${join(process.execPath, '..')}:/usr/bin:/bin` })
    try {
      const cli = (args: string[]) => runCli([...args, '--server', serve.url], { ...env, PATH: `${join(process.execPath, '..')}:/usr/bin:/bin` })
      const refused = await cli(['tunnel', 'start', '--provider', 'cloudflare'])
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain('add --yes (or FOLIO_INSTALL_CLOUDFLARED=1) to download it')
      expect(existsSync(join(cache, 'folio', 'bin', 'cloudflared'))).toBe(false)

      const started = await cli(['tunnel', 'start', '--provider', 'cloudflare', '--yes'])
      expect(started.code, started.stderr).toBe(0)
      expect(started.stdout).toMatch(/^Public URL: http:\/\/127\.0\.0\.1:\d+ \(cloudflare\)\nViewers open the link straight away/)
      expect(existsSync(join(cache, 'folio', 'bin', 'cloudflared'))).toBe(true)
      const status = await cli(['tunnel', 'status', '--json'])
      expect(JSON.parse(status.stdout)).toMatchObject({ state: 'connected', provider: 'cloudflare' })
    } finally {
      expect(await serve.stop('SIGTERM')).toBe(0)
      releases.close()
    }
    const started = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number)
    expect(started.length).toBeGreaterThan(0)
    expect(started.filter(alive)).toEqual([])

    // folio serve --tunnel with the remembered provider, stopped with Ctrl+C.
    const again = await startServe(['--port', '0', '--data', data, '--tunnel'], { ...env, PATH: `${join(process.execPath, '..')}:/usr/bin:/bin` })
    expect(again.stdout()).toMatch(/➜ Public: {3}http:\/\/127\.0\.0\.1:\d+/)
    expect(await again.stop('SIGINT')).toBe(0)
    const all = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number)
    expect(all.length).toBeGreaterThan(started.length)
    expect(all.filter(alive)).toEqual([])
  })

  it("sends Bypass-Tunnel-Reminder with every request of folio's own client", async () => {
    const seen: IncomingHttpHeaders[] = []
    const server = createServer((req, res) => {
      seen.push(req.headers)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"files":[],"total":0}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      await runCli(['list', '--json', '--server', `http://127.0.0.1:${(server.address() as AddressInfo).port}`])
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((headers) => headers['bypass-tunnel-reminder'] === 'folio')).toBe(true)
    } finally {
      server.close()
    }
  })
})
