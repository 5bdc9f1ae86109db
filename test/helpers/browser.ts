import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, inject } from 'vitest'
import type { ChromiumLaunch } from './chromium-setup.js'

/** Screenshots and other things a person may want to look at after a run. */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url))

const WHICH =
  'The browser tests use CHROMIUM_PATH if set, else /usr/bin/chromium if there is one (Debian: apt-get install chromium), else the Chromium inside the @sparticuz/chromium devDependency (npm install).'

/**
 * What the test browser says it is: the desktop Chrome it stands for. Headless Chromium names
 * itself HeadlessChrome, which folio counts as a bot (domain/bots.ts), not as a person's view.
 */
export const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36'

/** Launches the Chromium that vitest's globalSetup (chromium-setup.ts) chose for this run. */
export async function launchBrowser(): Promise<Browser> {
  const found: ChromiumLaunch | undefined = inject('chromium')
  if (!found) throw new Error(`No Chromium was chosen for this run: vitest.config.ts's globalSetup (test/helpers/chromium-setup.ts) did not run. ${WHICH}`)
  if (!found.executablePath) throw new Error(`No Chromium: ${found.error}. ${WHICH}`)
  await mkdir(ARTIFACTS, { recursive: true })
  try {
    return await chromium.launch({ executablePath: found.executablePath, args: [...found.args, `--user-agent=${DESKTOP_CHROME}`] })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const hint = /shared librar/.test(message) ? ' A system library is missing (the npm-shipped Chromium needs libnss3, libnspr4 and libexpat1).' : ''
    throw new Error(`Chromium from ${found.source} (${found.executablePath}) did not start.${hint} ${WHICH}\n${message}`)
  }
}

/** Polls until `check` returns a truthy value (the API catching up with what the page did). */
export async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * For a browser test file: one Chromium and a scratch folder (decks copied from npm packages are
 * written there), both opened before its tests and gone after them.
 */
export function useBrowserAndFolder(prefix: string) {
  let browser: Browser | undefined
  let folder: string | undefined
  beforeAll(async () => {
    browser = await launchBrowser()
    folder = await mkdtemp(join(tmpdir(), prefix))
  })
  afterAll(async () => {
    await browser?.close()
    if (folder) await rm(folder, { recursive: true, force: true })
  })
  return {
    get browser(): Browser {
      return browser!
    },
    get folder(): string {
      return folder!
    },
  }
}
