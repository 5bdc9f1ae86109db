import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { urlsIn, WEB_FETCH_LIMITS, webFetch } from '../src/ai/web-fetch.js'
import { isPublicAddress } from '../src/domain/public-address.js'
import { guardedFetch } from '../src/server/http/outbound-guard.js'

/** A real web server on loopback; the fetches that may reach it are told 127.0.0.1 is public. */
let base: string
let server: http.Server
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/page') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Otters</h1>')
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      return void res.end('x'.repeat(WEB_FETCH_LIMITS.maxBytes * 2))
    }
    if (req.url === '/image') return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(10))
    if (req.url === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end()
    if (req.url === '/to-page') return void res.writeHead(301, { location: '/page' }).end()
    res.writeHead(404).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

/** web_fetch as the server gives it (ai-service.ts: public addresses only), 127.0.0.1 counting as public where a test says so. */
const through = (isPublic?: (address: string) => boolean) => ({ fetch: guardedFetch({ maxRedirects: WEB_FETCH_LIMITS.maxRedirects, isPublic }) })
const loopbackAllowed = through((a) => a === '127.0.0.1')
const publicOnly = through()

describe('web_fetch', () => {
  it('reads text pages, follows redirects, cuts what is too big', async () => {
    expect(await webFetch(`${base}/to-page`, loopbackAllowed)).toEqual({
      url: `${base}/page`,
      status: 200,
      contentType: 'text/html',
      text: '<h1>Otters</h1>',
      truncated: false,
    })
    const huge = await webFetch(`${base}/huge`, loopbackAllowed)
    expect(huge.truncated).toBe(true)
    expect(huge.text.length).toBe(WEB_FETCH_LIMITS.maxChars)
    await expect(webFetch(`${base}/image`, loopbackAllowed)).rejects.toThrow('is image/png, not text.')
  })

  it('never reaches private, loopback or link-local addresses, directly, by name or by redirect', async () => {
    await expect(webFetch(`${base}/page`, publicOnly)).rejects.toThrow('127.0.0.1 is not a public address')
    await expect(webFetch(`http://localhost:${new URL(base).port}/page`, publicOnly)).rejects.toThrow('localhost is not a public address')
    await expect(webFetch(`${base}/to-metadata`, loopbackAllowed)).rejects.toThrow('169.254.169.254 is not a public address')
    await expect(webFetch('http://[::1]/', publicOnly)).rejects.toThrow('is not a public address')
    await expect(webFetch(`http://[::ffff:127.0.0.1]:${new URL(base).port}/page`, publicOnly)).rejects.toThrow('is not a public address')
    await expect(webFetch(`http://[::127.0.0.1]:${new URL(base).port}/page`, publicOnly)).rejects.toThrow('is not a public address')
    await expect(webFetch('file:///etc/passwd', publicOnly)).rejects.toThrow('Only http and https addresses can be fetched')
    for (const address of [
      '10.1.2.3',
      '192.168.0.1',
      '172.20.0.1',
      '100.64.0.1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      'fd00::1',
      'fe80::1',
      '0.0.0.0',
    ])
      expect([address, isPublicAddress(address)]).toEqual([address, false])
    for (const address of ['93.184.216.34', '2606:4700::1111']) expect([address, isPublicAddress(address)]).toEqual([address, true])
  })

  it('takes the addresses the user wrote, without trailing punctuation', () => {
    expect(urlsIn('See https://example.com/a, and (http://example.org/b). Not ftp://x.')).toEqual(['https://example.com/a', 'http://example.org/b'])
  })
})
