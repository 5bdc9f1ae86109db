import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { updateFolio } from '../src/api/files.js'
import { sharePage } from '../src/api/viewer.js'
import { launchBrowser } from './helpers/browser.js'
import { useServer } from './helpers/use-server.js'

/**
 * A private folio's frame token lasts 2 s here (minutes by default): the share page must keep
 * the folio working across its expiry, in a real browser.
 */
const s = useServer({ config: { frameTokenSeconds: 2 } })
let browser: Browser
const pageErrors: string[] = []

beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  expect(pageErrors).toEqual([])
})

const SITE = {
  'index.html': '<!doctype html><html><body><h1 id="title">Board pack</h1><a id="next" href="pages/two.html">Next</a></body></html>',
  'pages/two.html': '<!doctype html><html><body><h2 id="two">Page two</h2><a id="back" href="../index.html">Back</a></body></html>',
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const folioFrame = (page: Page) => page.frames().find((f) => f.url().includes('/v/'))!
const tokenIn = (url: string) => new URL(url).pathname.split('/')[3]!

describe('frame tokens in the share page', () => {
  it('keep a private folio working across their expiry: links, a script’s navigation, a new version', async () => {
    const id = await s.api.create('Board pack', SITE, { status: 'published' })
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'blue whale' } })
    const page = await browser.newPage()
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
    const expiredPages: string[] = []
    // The expired page is the raw route's only HTML 404 (its body is gone once the frame moves on).
    page.on('response', (response) => {
      if (response.status() === 404 && response.url().includes('/v/') && response.headers()['content-type']?.startsWith('text/html')) expiredPages.push(response.url())
    })
    await page.goto(s.api.url(sharePage, { id }))
    await page.locator('#access-key').fill('blue whale')
    await page.locator('#access-key').press('Enter')
    const frame = page.frameLocator('iframe.frame')
    await expect.poll(() => frame.locator('#title').textContent(), { timeout: 10_000 }).toBe('Board pack')
    const first = tokenIn(folioFrame(page).url())

    // Past the first token's time: a link in the folio follows the share page's fresh token.
    await sleep(2_500)
    await frame.locator('#next').click()
    await expect.poll(() => frame.locator('#two').textContent()).toBe('Page two')
    const second = tokenIn(folioFrame(page).url())
    expect(second).not.toBe(first)
    expect(expiredPages).toEqual([])

    // A script navigates with the token its page was loaded under, run out by now: the server's
    // expired page asks the share page, which reloads the frame there with a fresh token.
    await sleep(2_500)
    await frame.locator('body').evaluate(() => location.assign('../index.html'))
    await expect.poll(() => frame.locator('#title').textContent(), { timeout: 10_000 }).toBe('Board pack')
    expect(expiredPages).toHaveLength(1)
    expect(tokenIn(expiredPages[0]!)).toBe(second)
    expect(tokenIn(folioFrame(page).url())).not.toBe(second)

    // A new version long after the page was opened: the frame reloads under a fresh token.
    await sleep(2_500)
    await s.api.send(updateFolio, { params: { id }, body: { files: { ...SITE, 'index.html': SITE['index.html'].replace('Board pack', 'Board pack v2') } } })
    await expect.poll(() => frame.locator('#title').textContent(), { timeout: 10_000 }).toBe('Board pack v2')
    expect(expiredPages).toHaveLength(1)
    await page.close()
  })
})

describe('the key gate while a folio is being guessed', () => {
  const guarded = useServer({ config: { keyGuesses: { perFolio: 1, perClient: 10, newcomers: 0, baseDelayMs: 2_000, maxDelayMs: 2_000, queue: 0, quietMs: 60_000 } } })

  it('says how long to wait when the folio answers no more keys for now', async () => {
    const id = await guarded.api.create('Board pack', SITE, { status: 'published' })
    await guarded.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'blue whale' } })
    const page = await browser.newPage()
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
    await page.goto(guarded.api.url(sharePage, { id }))
    const unlock = async (key: string) => {
      await page.locator('#access-key').fill(key)
      await page.getByRole('button', { name: 'Unlock' }).click()
    }
    await unlock('red whale')
    await expect.poll(() => page.locator('#access-error').textContent()).toBe('That key is not right')
    await unlock('blue whale')
    await expect.poll(() => page.locator('#access-error').textContent()).toBe('Too many tries: wait 2 seconds, then try again')
    expect(await page.locator('iframe').count()).toBe(0)
    await page.close()
  })
})
