/*
 * Where the frame loads the folio from. A private folio's frame base carries a frame token that
 * lasts a few minutes (any script the folio includes can read the frame's URL, so it must not
 * last): this keeps a fresh one, renewing it before it runs out, and tells whoever listens
 * (the bridge, which points the folio's links at it). A published public folio's base ("-")
 * never runs out. A base names its version (/v/{id}/-@v3/): what the browser keeps of a version's
 * files is used again on the next view, and a new version is a new address.
 */

const encodePath = (path) => path.split('/').map(encodeURIComponent).join('/')

export function createFrameAccess(boot, { onRevoked }) {
  let base = boot.frameBase
  let expiresAt = typeof boot.frameExpiresAt === 'number' ? boot.frameExpiresAt : null
  // Renew when a third of the lifetime is left: a page loaded just before still has time to
  // fetch its styles and images.
  const lifetimeMs = Math.max(1000, (boot.frameTokenSeconds || 300) * 1000)
  const marginMs = lifetimeMs / 3
  const listeners = new Set()
  let renewing = null
  let timer = null

  function schedule() {
    clearTimeout(timer)
    if (expiresAt === null) return
    timer = setTimeout(() => renew().catch(() => {}), Math.max(0, expiresAt - marginMs - Date.now()))
  }

  /** A fresh base from the server; the page reloads when this viewer may not see the folio any more. */
  function renew() {
    renewing ??= (async () => {
      try {
        const res = await fetch(`${boot.api}/frame`, { credentials: 'same-origin', cache: 'no-store' })
        if (res.status === 403 || res.status === 404) {
          onRevoked()
          throw new Error('no access')
        }
        if (!res.ok) throw new Error(`HTTP ${res.status}`)
        const data = await res.json()
        base = data.frameBase
        expiresAt = typeof data.expiresAt === 'number' ? data.expiresAt : null
        for (const listener of listeners) listener(base)
        return base
      } finally {
        renewing = null
        schedule()
      }
    })()
    return renewing
  }

  /** A base good for a while yet: the current one, or a renewed one. */
  async function fresh() {
    if (expiresAt === null || expiresAt - Date.now() > marginMs) return base
    return renew().catch(() => base)
  }

  schedule()
  return {
    get base() {
      return base
    },
    /** The URL of a file (plus a query) under a fresh base. */
    async urlOf(file, query = '') {
      return (await fresh()) + encodePath(file) + query
    },
    renew,
    /** The same base for another version (a new one came): nothing of the old one is shown for it. */
    atVersion(versionId) {
      const next = base.replace(/@v\d+\/$/, `@${versionId}/`)
      if (next === base) return
      base = next
      for (const listener of listeners) listener(base)
    },
    onChange(listener) {
      listeners.add(listener)
    },
    stop() {
      clearTimeout(timer)
    },
  }
}
