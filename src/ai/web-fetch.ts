import { lookup as dnsLookup } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/** What one fetch may cost: the model waits for it, and its text goes back into the prompt. */
export const WEB_FETCH_LIMITS = { timeoutMs: 10_000, maxBytes: 512 * 1024, maxRedirects: 3, maxChars: 60_000 }

export class WebFetchRefused extends Error {}

/**
 * Addresses the server must never reach for a model: loopback, private networks, link-local
 * (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast, reserved ranges.
 */
const PRIVATE = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv4')
// Not ::ffff:0:0/96: BlockList checks IPv4 addresses against IPv4-mapped rules, so that range
// would refuse every IPv4 address. A mapped address is judged by its IPv4 part instead.
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) PRIVATE.addSubnet(net, prefix, 'ipv6')

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return isPrivateAddress(mapped[1]!)
  // The same in hex, as URLs write it: [::ffff:7f00:1] is 127.0.0.1.
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address)
  if (hex) {
    const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)]
    return isPrivateAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`)
  }
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

export interface WebFetchOptions {
  /** Which resolved addresses may be reached (tests: loopback). Default: public ones only. */
  addressAllowed?: (address: string) => boolean
  signal?: AbortSignal
}

/**
 * GET of an http(s) URL for a model. The address is checked where the socket connects (the
 * lookup hook), so a name that resolves to a public address for a check and a private one for
 * the connection (DNS rebinding) is refused too; each redirect is checked again. Text only,
 * cut at the byte and character limits.
 */
export async function webFetch(rawUrl: string, options: WebFetchOptions = {}): Promise<{ url: string; status: number; contentType: string; text: string; truncated: boolean }> {
  const allowed = options.addressAllowed ?? ((a: string) => !isPrivateAddress(a))
  let url = parseHttpUrl(rawUrl)
  for (let hop = 0; ; hop++) {
    const answer = await getOnce(url, allowed, options.signal)
    if (answer.redirect) {
      if (hop >= WEB_FETCH_LIMITS.maxRedirects) throw new WebFetchRefused(`Too many redirects from ${rawUrl}.`)
      url = parseHttpUrl(new URL(answer.redirect, url).href)
      continue
    }
    return { url: url.href, ...answer.result! }
  }
}

function parseHttpUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new WebFetchRefused(`${JSON.stringify(raw.slice(0, 200))} is not a URL.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebFetchRefused(`Only http and https addresses can be fetched, not ${url.protocol}`)
  if (url.username || url.password) throw new WebFetchRefused('Addresses with credentials are not fetched.')
  return url
}

function guardedLookup(allowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0)
      const list = addresses as Array<{ address: string; family: number }>
      const refused = list.find((a) => !allowed(a.address))
      if (refused || !list.length) return callback(Object.assign(new WebFetchRefused(`${hostname} is a private or local address; only public web addresses are fetched.`), { code: 'EREFUSED' }), '', 0)
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list)
      callback(null, list[0]!.address, list[0]!.family)
    })
  }
}

type Once = { redirect?: string; result?: { status: number; contentType: string; text: string; truncated: boolean } }

function getOnce(url: URL, allowed: (address: string) => boolean, signal?: AbortSignal): Promise<Once> {
  // An IP literal skips the lookup hook: check it here.
  const literal = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(literal) && !allowed(literal)) return Promise.reject(new WebFetchRefused(`${url.hostname} is a private or local address; only public web addresses are fetched.`))
  const client = url.protocol === 'https:' ? https : http
  return new Promise<Once>((resolve, reject) => {
    const request = client.get(url, { lookup: guardedLookup(allowed), timeout: WEB_FETCH_LIMITS.timeoutMs, signal, headers: { 'user-agent': 'folio-ai-web-fetch', accept: 'text/html,text/plain,application/json,*/*;q=0.5' } }, (response) => {
      const status = response.statusCode ?? 0
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume()
        return resolve({ redirect: response.headers.location })
      }
      const contentType = String(response.headers['content-type'] ?? '')
      if (contentType && !/^(text\/|application\/(json|xml|xhtml\+xml|ld\+json)|image\/svg\+xml)/i.test(contentType)) {
        response.destroy()
        return reject(new WebFetchRefused(`${url.href} is ${contentType.split(';')[0]}, not text.`))
      }
      const chunks: Buffer[] = []
      let bytes = 0
      let truncated = false
      response.on('data', (chunk: Buffer) => {
        if (truncated) return
        chunks.push(chunk)
        bytes += chunk.length
        if (bytes >= WEB_FETCH_LIMITS.maxBytes) {
          truncated = true
          response.destroy()
          finish()
        }
      })
      const finish = () => {
        let text = Buffer.concat(chunks).subarray(0, WEB_FETCH_LIMITS.maxBytes).toString('utf8')
        if (text.length > WEB_FETCH_LIMITS.maxChars) {
          text = text.slice(0, WEB_FETCH_LIMITS.maxChars)
          truncated = true
        }
        resolve({ result: { status, contentType, text, truncated } })
      }
      response.on('end', finish)
      response.on('error', (error) => (truncated ? undefined : reject(error)))
    })
    const deadline = setTimeout(() => request.destroy(new WebFetchRefused(`${url.href} did not answer within ${WEB_FETCH_LIMITS.timeoutMs / 1000} s.`)), WEB_FETCH_LIMITS.timeoutMs)
    request.on('timeout', () => request.destroy(new WebFetchRefused(`${url.href} went silent.`)))
    request.on('error', reject)
    request.on('close', () => clearTimeout(deadline))
  })
}

/** http(s) addresses written in a text: the only ones web_fetch will open. */
export function urlsIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s<>"'`)\]]+/gi)].map((m) => m[0].replace(/[.,;:!?]+$/, ''))
}
