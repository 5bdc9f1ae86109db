import type { TunnelConnector } from './providers.js'

/**
 * The author's own public URL (a reverse proxy, Tailscale Funnel, ngrok…), saved with the spec's
 * save_custom: folio starts nothing, and links, QR codes and e-mails use it while it is "up".
 */
export function customConnector(url: string): TunnelConnector {
  return {
    provider: 'custom',
    describe: url,
    connect: async () => ({ url: url.replace(/\/+$/, ''), onLost: () => {}, close: async () => {} }),
  }
}
