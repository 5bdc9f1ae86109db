import { createServer } from 'node:net'
import { InvalidArgumentError } from 'commander'

/** folio serve's port when neither --port nor PORT names one (and the CLI's default server's). */
export const DEFAULT_PORT = 3000

/** How many ports above a taken one are tried before the advice falls back to --port 0. */
const NEARBY = 20

export function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0 picks a free one)')
  return port
}

/**
 * What to say when the port someone chose is taken. "Try the next one" is only advice if the
 * next one is free: each port above it is tried (listened on and closed at once) on the same
 * host, and the first free one is named; when none is, --port 0 (any free port) is.
 */
export async function portInUseMessage(port: number, host: string): Promise<string> {
  const free = await freePortAbove(port, host)
  const instead = free === undefined ? '--port 0 (any free port)' : `--port ${free} (free just now), or --port 0 for any free port`
  return `Port ${port} is already in use. Stop the other server or start this one with ${instead}.`
}

async function freePortAbove(port: number, host: string): Promise<number | undefined> {
  for (let candidate = port + 1; candidate <= Math.min(port + NEARBY, 65535); candidate++) {
    if (await canListen(candidate, host)) return candidate
  }
  return undefined
}

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)))
  })
}
