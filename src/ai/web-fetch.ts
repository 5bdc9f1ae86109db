/** What one fetch may cost: the model waits for it, and its text goes back into the prompt. */
export const WEB_FETCH_LIMITS = { timeoutMs: 10_000, maxBytes: 512 * 1024, maxRedirects: 3, maxChars: 60_000 }

export class WebFetchRefused extends Error {}

export interface WebFetchOptions {
  /**
   * The server's guarded fetch (server/http/outbound-guard.ts): public addresses only, judged where
   * the socket connects, so DNS rebinding is refused too; every redirect (at most
   * WEB_FETCH_LIMITS.maxRedirects) judged again. Its failures say nothing of the socket or TLS.
   */
  fetch: (url: string, init: RequestInit) => Promise<Response>
  signal?: AbortSignal
}

/** GET of an http(s) URL for a model: text only, cut at the byte and character limits. */
export async function webFetch(
  rawUrl: string,
  options: WebFetchOptions,
): Promise<{ url: string; status: number; contentType: string; text: string; truncated: boolean }> {
  const url = parseHttpUrl(rawUrl)
  const deadline = AbortSignal.timeout(WEB_FETCH_LIMITS.timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline
  const late = () => new WebFetchRefused(`${url.href} did not answer within ${WEB_FETCH_LIMITS.timeoutMs / 1000} s.`)
  let response: Response
  try {
    response = await options.fetch(url.href, {
      signal,
      headers: { 'user-agent': 'folio-ai-web-fetch', accept: 'text/html,text/plain,application/json,*/*;q=0.5' },
    })
  } catch (error) {
    throw deadline.aborted && !options.signal?.aborted ? late() : error
  }
  const finalUrl = response.url || url.href
  const contentType = response.headers.get('content-type') ?? ''
  if (contentType && !/^(text\/|application\/(json|xml|xhtml\+xml|ld\+json)|image\/svg\+xml)/i.test(contentType)) {
    await response.body?.cancel()
    throw new WebFetchRefused(`${finalUrl} is ${contentType.split(';')[0]}, not text.`)
  }
  const chunks: Uint8Array[] = []
  let bytes = 0
  let truncated = false
  const reader = response.body?.getReader()
  try {
    while (reader) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      bytes += value.length
      if (bytes >= WEB_FETCH_LIMITS.maxBytes) {
        truncated = true
        await reader.cancel()
        break
      }
    }
  } catch (error) {
    throw deadline.aborted && !options.signal?.aborted ? late() : error
  }
  let text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, WEB_FETCH_LIMITS.maxBytes))
  if (text.length > WEB_FETCH_LIMITS.maxChars) {
    text = text.slice(0, WEB_FETCH_LIMITS.maxChars)
    truncated = true
  }
  return { url: finalUrl, status: response.status, contentType, text, truncated }
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

/** http(s) addresses written in a text: the only ones web_fetch will open. */
export function urlsIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s<>"'`)\]]+/gi)].map((m) => m[0].replace(/[.,;:!?]+$/, ''))
}
