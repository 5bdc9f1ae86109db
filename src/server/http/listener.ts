import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer, isIP } from 'node:net'
import { listen, type Listener } from 'listhen'

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`Port ${port} is already in use. Stop the other server or start this one with --port ${port + 1}.`)
  }
}

export interface MainListenerOptions {
  port: number
  /** The port is a default nobody chose: when it is taken, take a free one (nearby, else any). */
  fallbackPort?: boolean
  host: string
}

/** What listhen accepts as a host; anything else it silently swaps for localhost. */
const LISTHEN_HOST = /^(?!-)[\d.:A-Za-z-]{1,63}(?<!-)$/

/** get-port-please reads an empty range as "no alternative" (its type wants a pair). */
const NO_OTHER_PORT = { alternativePortRange: [] as unknown as [number, number], random: false }

export const isAnyHost = (host: string) => host === '0.0.0.0' || host === '::'

/** 127.0.0.0/8, ::1 and localhost: reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'))
}

/**
 * The main listener, through listhen: it finds the port (get-port-please), listens, lists the
 * network addresses and closes gracefully (http-shutdown: no new connections, idle ones closed
 * at once, busy ones after their answer). Its banner, QR code, browser and signal handling stay
 * off: `folio serve` prints its own (stdout must stay one JSON line with --json) and drains
 * in-flight requests on a signal, where listhen would exit at once.
 *
 * An explicit port that is taken is an error (PortInUseError), never another port. Caveat:
 * listhen checks the port with a probe, then listens; if another process takes it between the
 * two, node emits an 'error' nobody listens to and the process exits. The window is a few ticks.
 */
export async function listenMain(handle: (req: IncomingMessage, res: ServerResponse) => void, options: MainListenerOptions): Promise<Listener> {
  if (!LISTHEN_HOST.test(options.host)) {
    throw new Error(`Cannot listen on ${JSON.stringify(options.host)}: give an IP address or a host name (letters, digits, dots and dashes).`)
  }
  await checkHost(options.host)
  const { port } = options
  try {
    return await listen(handle, {
      hostname: options.host,
      port: {
        port,
        // get-port-please prints what it tries on stdout unless told not to.
        verbose: false,
        // Port 0 asks for any free port; random:false would make get-port-please try 3000.
        ...(port === 0 ? {} : options.fallbackPort ? { alternativePortRange: [port + 1, Math.min(port + 100, 65535)] } : NO_OTHER_PORT),
      },
      // 0.0.0.0 and :: must be "public" for listhen to keep them (else it listens on localhost)
      // and to list the interfaces; a named host or address is listed as itself.
      public: isAnyHost(options.host),
      showURL: false,
      qr: false,
      open: false,
      clipboard: false,
      tunnel: false,
      autoClose: false,
      isTest: false,
      isProd: false,
    })
  } catch (error) {
    // get-port-please found the port taken (GetPortError); EADDRINUSE, should listhen ever pass
    // node's listen error on instead of leaving it unheard (see above).
    if ((error as Error).name === 'GetPortError' || (error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(port)
    throw error
  }
}

/**
 * Whether this machine can listen on `host` at all. get-port-please reports any failure to bind
 * as "no free port": a name that does not resolve or an address this machine does not have
 * would read as a taken port.
 */
async function checkHost(host: string): Promise<void> {
  const probe = createServer()
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject)
      probe.listen(0, host, () => probe.close(() => resolve()))
    })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'EADDRNOTAVAIL'
        ? 'no network interface of this machine has that address'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? 'the name does not resolve'
          : (error as Error).message
    throw new Error(`Cannot listen on ${host}: ${why}.`)
  }
}

/** http://<address>:<port> of each network interface the listener is reachable on (none on loopback). */
export async function networkUrls(listener: Listener): Promise<string[]> {
  const urls = await listener.getURLs()
  return urls.filter((u) => u.type === 'network' && !isLoopbackHost(new URL(u.url).hostname)).map((u) => u.url.replace(/\/+$/, ''))
}
