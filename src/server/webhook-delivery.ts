import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { BlockList, isIP } from 'node:net'

/**
 * Posting a chat notification to a workspace's webhook URL. The URL is the workspace's to
 * choose, so without a guard it would let anyone with a key make the server call its own
 * network (the cloud's metadata address, a database on loopback): unless the operator allows
 * private targets, an address in a private, loopback, link-local or reserved range is refused,
 * when the URL is saved (literal addresses, localhost) and again at every delivery, on the
 * address DNS gives at that moment (a name may be re-pointed after it was saved). Redirects are
 * not followed, for the same reason.
 */
const PRIVATE = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [
  ['::', 127], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv6')

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return true
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1, ::ffff:a00:1) is that IPv4 address.
  const mapped = /^::ffff:(.+)$/i.exec(address)?.[1]
  if (family === 6 && mapped) return isPrivateAddress(mapped.includes('.') ? mapped : hexToIpv4(mapped))
  // BlockList also checks IPv4 addresses against IPv6 rules (as mapped ones): none of ours match those.
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

function hexToIpv4(groups: string): string {
  const [high = '0', low = '0'] = groups.split(':')
  const n = (parseInt(high, 16) << 16) | parseInt(low, 16)
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')
}

/** Why a webhook URL cannot be used (undefined: it can), judged without a network call. */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'is not a URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL'
  if (allowPrivate) return undefined
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isPrivateAddress(host))) {
    return 'points into a private network; the operator may allow that with FOLIO_WEBHOOKS_ALLOW_PRIVATE=1'
  }
  return undefined
}

export class PrivateAddressError extends Error {
  constructor(host: string) {
    super(`${host} resolves to a private address`)
  }
}

export interface DeliveryOptions {
  timeoutMs: number
  allowPrivate: boolean
  signal?: AbortSignal
}

/** What the receiver answered: its status, and how long it asked us to wait (429/503). */
export interface DeliveryAnswer {
  status: number
  retryAfterMs?: number
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/** dns.lookup that refuses private addresses: node's socket calls it, so the checked address is the one dialled. */
export function guardedLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, [])
    if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) return callback(new PrivateAddressError(hostname), [])
    if (options.all) return callback(null, addresses)
    callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}

/** POSTs `payload` as JSON; resolves with the answer's status, rejects on a network failure or timeout. */
export function postJson(rawUrl: string, payload: object, options: DeliveryOptions): Promise<DeliveryAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(rawUrl)
    const problem = webhookUrlProblem(rawUrl, options.allowPrivate)
    if (problem) return reject(new Error(`The URL ${problem}`))
    const body = Buffer.from(JSON.stringify(payload))
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const req = send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': body.length, 'user-agent': 'folio-notifications' },
      ...(options.allowPrivate ? {} : { lookup: guardedLookup as never }),
      signal: options.signal,
    })
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs)
    timer.unref()
    req.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    req.on('response', (res: IncomingMessage) => {
      // The answer's body says nothing we use; read it (at most 64 KB) so the socket is freed.
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > 64 * 1024) res.destroy()
      })
      res.on('close', () => {
        clearTimeout(timer)
        resolve({ status: res.statusCode ?? 0, retryAfterMs: retryAfterMs(res.headers['retry-after']) })
      })
    })
    req.end(body)
  })
}

function retryAfterMs(value: string | undefined): number | undefined {
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}
