import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { updateFolio } from '../src/api/files.js'
import { sharePage } from '../src/api/viewer.js'
import { launchBrowser } from './helpers/browser.js'
import { useServer } from './helpers/use-server.js'

/**
 * A private folio's frame token lasts 2 s here (minutes by default): the share page must keep
 * the folio working across its expiry, in a real browser. The test sleeps through no expiry: it
 * asks the server (from outside the page) for the frame's current address until the server turns
 * that token away, and only then goes on.
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

/** Until the server calls this frame address's token expired: a navigation there gets the "expired" page. */
async function untilExpired(frameUrl: string) {
  const answer = async () => {
    const response = await fetch(frameUrl, { headers: { accept: 'text/html' } })
    return `${response.status} ${await response.text()}`
  }
  await expect.poll(answer, { timeout: 10_000, interval: 50 }).toMatch(/^404 [\s\S]*This link has expired/)
}
const folioFrame = (page: Page) => page.frames().find((f) => f.url().includes('/v/'))!
const tokenIn = (url: string) => new URL(url).pathname.split('/')[3]!

describe('frame tokens in the share page', () => {
  it('keep a private folio working across their expiry: links, a script’s navigation, a new version', async () => {
    const id = await s.api.create('Board pack', SITE, { status: 'published' })
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'blue whale' } })
    const page = await browser.newPage()
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
    const expiredPages: string[] = []
    let renewals = 0
    // The expired page is the raw route's only HTML 404 (its body is gone once the frame moves on).
    page.on('response', (response) => {
      if (response.ok() && new URL(response.url()).pathname.endsWith(`/${id}/frame`)) renewals++
      if (response.status() === 404 && response.url().includes('/v/') && response.headers()['content-type']?.startsWith('text/html'))
        expiredPages.push(response.url())
    })
    await page.goto(s.api.url(sharePage, { id }))
    await page.locator('#access-key').fill('blue whale')
    await page.locator('#access-key').press('Enter')
    const frame = page.frameLocator('iframe.frame')
    await expect.poll(() => frame.locator('#title').textContent(), { timeout: 10_000 }).toBe('Board pack')
    const first = tokenIn(folioFrame(page).url())

    // Past the first token's time: a link in the folio follows the share page's fresh token
    // (renewed before the old one ran out).
    await untilExpired(folioFrame(page).url())
    await expect.poll(() => renewals).toBeGreaterThan(0)
    await frame.locator('#next').click()
    await expect.poll(() => frame.locator('#two').textContent()).toBe('Page two')
    const second = tokenIn(folioFrame(page).url())
    expect(second).not.toBe(first)
    expect(expiredPages).toEqual([])

    // A script navigates with the token its page was loaded under, run out by now: the server's
    // expired page asks the share page, which reloads the frame there with a fresh token.
    await untilExpired(folioFrame(page).url())
    await frame.locator('body').evaluate(() => location.assign('../index.html'))
    await expect.poll(() => frame.locator('#title').textContent(), { timeout: 10_000 }).toBe('Board pack')
    expect(expiredPages).toHaveLength(1)
    expect(tokenIn(expiredPages[0]!)).toBe(second)
    expect(tokenIn(folioFrame(page).url())).not.toBe(second)

    // A new version after the frame's token ran out: the frame reloads under a fresh token.
    await untilExpired(folioFrame(page).url())
    await s.api.send(updateFolio, { params: { id }, body: { files: { ...SITE, 'index.html': SITE['index.html'].replace('Board pack', 'Board pack v2') } } })
    await expect.poll(() => frame.locator('#title').textContent(), { timeout: 10_000 }).toBe('Board pack v2')
    expect(expiredPages).toHaveLength(1)
    await page.close()
  })
})

describe('the key gate while a folio is being guessed', () => {
  const guarded = useServer({ config: { keyGuesses: { perClient: 1, baseDelayMs: 2_000, maxDelayMs: 2_000, queue: 0 } } })

  it('counts down the wait the server gave, then lets the right key in', async () => {
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
    await expect.poll(() => page.locator('#access-error').textContent()).toBe('That key is not right.')
    await unlock('blue whale')
    // How long, in words, counting down: not a dimmed button.
    await expect.poll(() => page.locator('#access-error').textContent()).toMatch(/^Too many tries: you can try again in [12] seconds?\.$/)
    expect(await page.getByRole('button', { name: 'Unlock' }).isEnabled()).toBe(true)
    expect(await page.locator('iframe').count()).toBe(0)
    await expect.poll(() => page.locator('#access-error').textContent(), { timeout: 5_000 }).toBe('You can try again now.')
    // The key the viewer typed is still there: the wait judged nothing.
    expect(await page.locator('#access-key').inputValue()).toBe('blue whale')
    await page.getByRole('button', { name: 'Unlock' }).click()
    await expect.poll(() => folioFrame(page)?.locator('#title').textContent(), { timeout: 10_000 }).toBe('Board pack')
    await page.close()
  })
})

describe('the key gate on a slow link', () => {
  /** Holds the answers to POST /public until released, as a slow network would. */
  async function holdAnswers(page: Page) {
    const held: Array<() => Promise<void>> = []
    let sent = 0
    await page.route(
      (url) => url.pathname.endsWith('/public'),
      async (route) => {
        if (route.request().method() !== 'POST') return route.fallback()
        sent++
        const response = await route.fetch()
        // A request the page gave up on (a newer key replaced it) can no longer be answered.
        held.push(() => route.fulfill({ response }).catch(() => {}))
      },
    )
    return {
      sent: () => sent,
      release: async () => {
        for (const answer of held.splice(0)) await answer()
      },
    }
  }

  it('never lets a late answer judge or clear a key typed after it was sent', async () => {
    const id = await s.api.create('Board pack', SITE, { status: 'published' })
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'blue whale' } })
    const page = await browser.newPage()
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
    const answers = await holdAnswers(page)
    await page.goto(s.api.url(sharePage, { id }))
    const field = page.locator('#access-key')
    await field.fill('red whale')
    await field.press('Enter')
    await expect.poll(() => answers.sent()).toBe(1)
    await expect.poll(() => page.getByRole('button', { name: 'Checking…' }).count()).toBe(1)
    // The viewer corrects the key while the first answer is on its way…
    await field.fill('blue whale')
    await answers.release()
    // …and the late "wrong" for red whale neither clears nor judges what is in the field now.
    await page.getByRole('button', { name: 'Unlock' }).waitFor()
    expect(await field.inputValue()).toBe('blue whale')
    expect(await page.locator('#access-error').textContent()).toBe('')
    expect(await field.getAttribute('aria-invalid')).toBeNull()
    await page.unrouteAll({ behavior: 'ignoreErrors' }) // answers flow again
    await field.press('Enter')
    await expect.poll(() => folioFrame(page)?.locator('#title').textContent(), { timeout: 10_000 }).toBe('Board pack')
    await page.close()
  })

  it('lets a new key replace one still being checked', async () => {
    const id = await s.api.create('Board pack', SITE, { status: 'published' })
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'blue whale' } })
    const page = await browser.newPage()
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
    let first = true
    let releaseFirst!: () => void
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve))
    await page.route(
      (url) => url.pathname.endsWith('/public'),
      async (route) => {
        if (route.request().method() !== 'POST' || !first) return route.fallback()
        first = false
        await firstHeld // the first answer never comes while the test watches
        await route.abort().catch(() => {})
      },
    )
    await page.goto(s.api.url(sharePage, { id }))
    const field = page.locator('#access-key')
    await field.fill('red whale')
    await field.press('Enter')
    await page.getByRole('button', { name: 'Checking…' }).waitFor()
    // Enter again, with the right key, while the first is pending: it is sent, and it opens the folio.
    await field.fill('blue whale')
    await field.press('Enter')
    await expect.poll(() => folioFrame(page)?.locator('#title').textContent(), { timeout: 10_000 }).toBe('Board pack')
    releaseFirst()
    await page.close()
  })
})
