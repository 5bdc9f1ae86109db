import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium } from 'playwright-core'

/** Debian's chromium (installed by .ci/run); CHROMIUM_PATH points elsewhere if needed. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Screenshots and other things a person may want to look at after a run. */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url))

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`)
  await mkdir(ARTIFACTS, { recursive: true })
  return chromium.launch({
    executablePath: CHROMIUM,
    // Quiet and offline: this machine's closed network refuses Chromium's background calls.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
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
