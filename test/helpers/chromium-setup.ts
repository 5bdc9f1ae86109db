import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'

/**
 * vitest's globalSetup: finds the Chromium the browser tests drive, once per run, in the main
 * process, and hands it to the test files (inject('chromium'), see browser.ts). Test files run in
 * parallel workers; deciding and unpacking here means they never race each other for it.
 */

/** Which Chromium to launch and with which flags; `error` says why there is none. */
export interface ChromiumLaunch {
  executablePath?: string
  args: string[]
  /** Where it came from, for error messages. */
  source: string
  error?: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumLaunch
  }
}

/**
 * Quiet and offline: this machine's closed network refuses Chromium's background calls.
 * (Headless comes from playwright's launch, whichever Chromium it is.)
 */
const OUR_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/**
 * Flags of @sparticuz/chromium's recommended list that we leave out. It is tuned for AWS Lambda:
 * one process (Lambda forbids the zygote's sandbox setup; here the usual process model runs), and
 * the same-origin policy, site isolation and mixed-content blocking switched off, which are exactly
 * what the sandbox tests check a folio cannot get around. Playwright passes --headless itself.
 */
const LAMBDA_ONLY =
  /^--(single-process|disable-web-security|allow-running-insecure-content|disable-site-isolation-trials|disable-features=|enable-features=|headless)/

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const DEBIAN_CHROMIUM = '/usr/bin/chromium'

export default async function setup(project: TestProject): Promise<void> {
  project.provide('chromium', await findChromium())
}

async function findChromium(): Promise<ChromiumLaunch> {
  const wanted = process.env.CHROMIUM_PATH
  if (wanted) {
    const source = `CHROMIUM_PATH=${wanted}`
    return existsSync(wanted) ? { executablePath: wanted, args: OUR_ARGS, source } : { args: [], source, error: `${source} does not exist` }
  }
  if (existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM, args: OUR_ARGS, source: `the system's ${DEBIAN_CHROMIUM}` }
  const { default: Sparticuz } = await import('@sparticuz/chromium')
  const version = JSON.parse(await readFile(join(ROOT, 'node_modules/@sparticuz/chromium/package.json'), 'utf8')).version as string
  const source = `@sparticuz/chromium ${version}`
  const args = [...new Set([...Sparticuz.args.filter((arg) => !LAMBDA_ONLY.test(arg)), ...OUR_ARGS])]
  try {
    return { executablePath: await unpackOnce(version, () => Sparticuz.executablePath()), args, source }
  } catch (error) {
    return { args, source, error: `could not unpack ${source}: ${error instanceof Error ? error.message : String(error)}` }
  }
}

/**
 * The npm-shipped Chromium, unpacked once per install into node_modules/.cache (a second run
 * finds it there). @sparticuz/chromium unpacks into os.tmpdir() and trusts whatever `chromium`
 * it finds there: a half-written file from a concurrent run, another version, another user's
 * file it may not execute. So it unpacks into a fresh folder of ours (TMPDIR pointed at it for
 * the call; nothing else runs in this process yet), which is then renamed into place: the
 * version's folder is there complete or not at all, and of two concurrent runs the second
 * rename fails and that run takes the first one's folder.
 */
async function unpackOnce(version: string, unpack: () => Promise<string>): Promise<string> {
  const cache = join(ROOT, 'node_modules/.cache/folio-test-chromium')
  const done = join(cache, version)
  if (!existsSync(join(done, 'chromium'))) {
    await mkdir(cache, { recursive: true })
    const fresh = await mkdtemp(join(cache, '.unpacking-'))
    const savedTmpdir = process.env.TMPDIR
    process.env.TMPDIR = fresh
    try {
      await unpack()
    } finally {
      if (savedTmpdir === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = savedTmpdir
    }
    await rename(fresh, done).catch(async (error) => {
      await rm(fresh, { recursive: true, force: true })
      if (!existsSync(join(done, 'chromium'))) throw error
    })
    // Older versions' folders (each about 200 MB) are of no use once the package moved on.
    for (const entry of await readdir(cache)) if (entry !== version && !entry.startsWith('.')) await rm(join(cache, entry), { recursive: true, force: true })
  }
  return join(done, 'chromium')
}
