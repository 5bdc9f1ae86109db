import { execFile } from 'node:child_process'
import { accessSync, constants, createWriteStream } from 'node:fs'
import { chmod, mkdir, mkdtemp, rename, rm } from 'node:fs/promises'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'

/**
 * The cloudflared executable a Cloudflare quick tunnel runs: the one FOLIO_CLOUDFLARED names,
 * else the one folio downloaded before (in the user's cache, shared by the CLI and the server),
 * else one on PATH. Downloading it is the user's choice (about 40 MB from Cloudflare's GitHub
 * releases, once): installCloudflared, after asking.
 */
const EXE = process.platform === 'win32' ? 'cloudflared.exe' : 'cloudflared'
const RELEASES = 'https://github.com/cloudflare/cloudflared/releases/latest/download'

/** $XDG_CACHE_HOME/folio/bin/cloudflared (~/.cache/… by default; %LOCALAPPDATA% on Windows). */
export function cloudflaredCachePath(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME || (process.platform === 'win32' && env.LOCALAPPDATA) || join(homedir(), '.cache')
  return join(cache, 'folio', 'bin', EXE)
}

export function findCloudflared(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.FOLIO_CLOUDFLARED) return env.FOLIO_CLOUDFLARED
  const candidates = [
    cloudflaredCachePath(env),
    ...(env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, EXE)),
  ]
  return candidates.find(isExecutable)
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The release asset for this machine, as Cloudflare names them; undefined where there is none. */
export function cloudflaredAsset(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | undefined {
  const cpu = ({ x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' } as Record<string, string>)[arch]
  if (!cpu) return undefined
  if (platform === 'linux') return `cloudflared-linux-${cpu}`
  if (platform === 'darwin' && (cpu === 'amd64' || cpu === 'arm64')) return `cloudflared-darwin-${cpu}.tgz`
  if (platform === 'win32' && (cpu === 'amd64' || cpu === '386')) return `cloudflared-windows-${cpu}.exe`
  return undefined
}

export function cloudflaredDownloadUrl(env: NodeJS.ProcessEnv = process.env): string {
  const asset = cloudflaredAsset()
  if (!asset)
    throw new Error(`Cloudflare publishes no cloudflared for ${process.platform}/${process.arch}: install one yourself and set FOLIO_CLOUDFLARED to its path.`)
  // FOLIO_CLOUDFLARED_RELEASES: a mirror of the release assets (an offline network, a pinned version).
  return `${(env.FOLIO_CLOUDFLARED_RELEASES || RELEASES).replace(/\/+$/, '')}/${asset}`
}

export interface InstallProgress {
  received: number
  /** From Content-Length; undefined when the server does not say. */
  total?: number
}

/**
 * Downloads cloudflared into the cache, whole or not at all: into a temporary folder beside it,
 * then renamed into place (a second install at the same time renames the same bytes).
 */
export async function installCloudflared(
  options: { env?: NodeJS.ProcessEnv; signal?: AbortSignal; onProgress?: (progress: InstallProgress) => void } = {},
): Promise<string> {
  const env = options.env ?? process.env
  const url = cloudflaredDownloadUrl(env)
  const target = cloudflaredCachePath(env)
  const dir = join(target, '..')
  await mkdir(dir, { recursive: true })
  const work = await mkdtemp(join(dir, '.download-'))
  try {
    const response = await fetch(url, { signal: options.signal, redirect: 'follow' })
    if (!response.ok || !response.body) throw new Error(`Downloading cloudflared from ${url} failed: HTTP ${response.status}.`)
    const total = Number(response.headers.get('content-length')) || undefined
    let received = 0
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>)
    body.on('data', (chunk: Buffer) => {
      received += chunk.length
      options.onProgress?.({ received, total })
    })
    const file = join(work, url.endsWith('.tgz') ? 'cloudflared.tgz' : EXE)
    await pipeline(body, createWriteStream(file, { mode: 0o755 }), { signal: options.signal })
    if (total !== undefined && received !== total) throw new Error(`Downloading cloudflared from ${url} stopped at ${received} of ${total} bytes.`)
    // macOS assets are a .tgz holding the executable; every macOS has tar.
    if (file.endsWith('.tgz')) await promisify(execFile)('tar', ['-xzf', file, '-C', work])
    await chmod(join(work, EXE), 0o755)
    await rename(join(work, EXE), target)
    return target
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}
