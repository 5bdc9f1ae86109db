import { type FolioRow, shareUrlFor, type StatusSnapshot } from './snapshot.js'

/**
 * Where the selected folio can be opened, and what its QR code holds. A phone is not this
 * machine: the code holds the folio's share page through the tunnel when one is connected; a
 * server that is not on a loopback address (--server http://nas:3000) may be reached from the
 * phone's network, so its share page is the code then; a loopback server's address means nothing
 * on a phone, so there is no code, and the panel says that the tunnel (t) gives one.
 */
export interface ShareLinks {
  /** The share page as people open it: through the tunnel when connected, else on the server. */
  share: string
  /** What the QR code holds; null when no address reaches this server from a phone. */
  qr: string | null
  via: 'tunnel' | 'network' | null
}

export function isLoopbackUrl(url: string): boolean {
  let host: string
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase()
  } catch {
    return false
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

export function shareLinks(snapshot: StatusSnapshot, folio: Pick<FolioRow, 'id'>): ShareLinks {
  // Viewers' address: no preview flag (that is the owner's, on this machine: `o` opens it).
  const plain = { id: folio.id, status: 'published' } as const
  const tunnel = snapshot.tunnel
  if (tunnel?.available && tunnel.state === 'connected' && tunnel.url) {
    const share = shareUrlFor(tunnel.url, plain)
    return { share, qr: share, via: 'tunnel' }
  }
  const share = shareUrlFor(snapshot.server.url, plain)
  return isLoopbackUrl(snapshot.server.url) ? { share, qr: null, via: null } : { share, qr: share, via: 'network' }
}
