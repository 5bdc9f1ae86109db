import { InvalidArgumentError } from 'commander'

/** folio serve's port when neither --port nor PORT names one (and the CLI's default server's). */
export const DEFAULT_PORT = 3000

export function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0 picks a free one)')
  return port
}
