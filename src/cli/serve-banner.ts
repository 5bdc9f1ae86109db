import { paint } from '../log/logger.js'
import { qrLines } from '../tui/qr.js'
import type { NextSteps } from './serve-next-steps.js'

export interface BannerInfo {
  url: string
  networkUrls: string[]
  /** Listening on loopback only (no network addresses by choice). */
  loopback: boolean
  publicUrl?: string
  /** Said under the public URL: the tunnel password viewers need, what they see first. */
  publicNotes?: string[]
  dataDir: string
  mode: string
  /** "0.1.0 (Node v20.19.5)", or "0.1.0 (single executable, Node v26.12.1)". */
  version: string
  /** The commands to run next, e.g. folio create --dir . --publish (serve-next-steps.ts) */
  next: NextSteps
}

export interface BannerStyle {
  colors: boolean
  /** Draw a QR code of the first network address (for phones): only for a person at a terminal. */
  qr: boolean
}

/**
 * What `folio serve` prints once it listens (its result, on stdout): the addresses, where the
 * data lives, what to do next. Labels in listhen's manner (➜ Local / Network).
 */
export function serveBanner(info: BannerInfo, style: BannerStyle): string {
  const { colors } = style
  const label = (name: string, color: 'green' | 'magenta' | 'yellow' | 'gray') => paint(colors, color, `  ➜ ${`${name}:`.padEnd(9)}`)
  const link = (url: string) => paint(colors, 'cyan', url)
  const lines = [`folio is serving ${paint(colors, 'bold', info.url)}`, '', `${label('Local', 'green')} ${link(info.url)}`]
  if (info.networkUrls.length) {
    for (const url of info.networkUrls) lines.push(`${label('Network', 'magenta')} ${link(url)}`)
    lines.push(paint(colors, 'gray', '              network addresses need the API key: folio keys show prints it'))
  } else {
    const why = info.loopback ? 'this machine only; --host 0.0.0.0 opens it to your network' : 'none found (no network interface is up)'
    lines.push(`${label('Network', 'gray')} ${paint(colors, 'gray', why)}`)
  }
  if (info.publicUrl)
    lines.push(
      `${label('Public', 'yellow')} ${link(info.publicUrl)}`,
      ...(info.publicNotes ?? []).map((note) => paint(colors, 'gray', `              ${note}`)),
    )
  lines.push(
    `${label('API', 'gray')} ${link(`${info.url}/api/openapi`)}`,
    `${label('Data', 'gray')} ${info.dataDir} (${info.mode} mode)`,
    `${label('Version', 'gray')} ${info.version}`,
  )
  if (style.qr && info.networkUrls[0]) lines.push('', ...qrCode(info.networkUrls[0], colors))
  lines.push('', ...nextLines(info.next, colors), 'Press Ctrl+C to stop.')
  return lines.join('\n')
}

/** One command goes on the Next: line; several go one per line under what they are for, ready to paste. */
function nextLines(next: NextSteps, colors: boolean): string[] {
  const bold = (command: string) => paint(colors, 'bold', command)
  if (!next.intro && next.commands.length === 1) return [`Next: ${bold(next.commands[0]!)}`]
  return [`Next: ${next.intro ?? ''}`.trimEnd(), ...next.commands.map((command) => `  ${bold(command)}`)]
}

/**
 * Dark modules must come out dark: with colours, black on bright white whatever the terminal's
 * theme; without, the light modules are drawn instead (right on the usual dark background).
 */
function qrCode(url: string, colors: boolean): string[] {
  return qrLines(url, { invert: !colors }).map((line) => `  ${paint(colors, ['black', 'bgWhiteBright'], line)}`)
}
