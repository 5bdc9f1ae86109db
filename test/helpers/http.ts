/**
 * Path-based fetch wrappers, left only for test/tui-tmux.test.ts (changed in parallel elsewhere):
 * new tests call endpoints by contract through helpers/api.ts. Delete this file once nothing imports it.
 */
export interface Reply<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export async function request<T = any>(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
  const init: RequestInit = { method, headers: { ...headers } }
  if (body !== undefined) {
    init.body = typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body)
    ;(init.headers as Record<string, string>)['content-type'] ??= 'application/json'
  }
  const res = await fetch(base + path, init)
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text }
}

export function client(base: string) {
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => request<T>(base, 'GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => request<T>(base, 'POST', path, body, headers),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => request<T>(base, 'PUT', path, body, headers),
    delete: <T = any>(path: string, headers?: Record<string, string>) => request<T>(base, 'DELETE', path, undefined, headers),
    /** Creates a folio and returns its id. */
    async create(title: string, files: Record<string, string> = { 'index.html': `<h1>${title}</h1>` }, extra: object = {}): Promise<string> {
      const reply = await request(base, 'POST', '/api/files', { title, defaultFiles: files, ...extra })
      if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${reply.text}`)
      return reply.body.project.id as string
    },
  }
}
