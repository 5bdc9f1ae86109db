import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { createLink, revokeLink } from '../src/api/links.js'
import { dashboardPage, folioPage } from '../src/api/viewer.js'
import { ARTIFACTS, eventually, useBrowserAndFolder } from './helpers/browser.js'
import { runCli } from './helpers/cli.js'
import { revealDemo } from './helpers/real-decks.js'
import { DESKTOP, folioFrame } from './helpers/share-page.js'
import { useServer } from './helpers/use-server.js'

/*
 * Issue 28, in Chromium: reveal.js's own demo (from the npm package) viewed as a person does,
 * through the tunnel's listener (a viewer elsewhere, not the owner's machine), the time on each
 * slide reported by the page and summed up for the author; the dashboard nudged as it happens.
 */
const s = useServer()
const scratch = useBrowserAndFolder('folio-browser-analytics-')
let id: string

beforeAll(async () => {
  const created = await runCli(['create', '--dir', await revealDemo(scratch.folder), '--publish', '--json'], { FOLIO_URL: s.ts.url })
  expect(created.code, created.stderr).toBe(0)
  id = created.json().id
})

const analytics = async () => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.analytics
const viewerUrl = (query = '') => `${s.ts.server.tunnelTarget}/share/${id}${query}`

/** The share page through the tunnel's listener; requests off the test server are aborted (the demo links the internet). */
async function view(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage()
  const origin = new URL(url).origin
  await page.route(
    (u) => u.origin !== origin,
    (route) => route.abort('blockedbyclient'),
  )
  await page.goto(url)
  return page
}

/** reveal.js's own API: the slide (0-based) it shows. */
const goTo = async (page: Page, h: number) => {
  const frame = await folioFrame(page)
  await expect.poll(() => frame.evaluate(() => Boolean((window as any).Reveal?.isReady?.())), { timeout: 10_000 }).toBe(true)
  await frame.evaluate((h) => (window as any).Reveal.slide(h, 0), h)
}

describe('time per slide, from a real deck in a real browser', () => {
  it('gives slide 3 more time than slide 1, stops the view at slide 3, and counts a second visit as returning', async () => {
    const context = await scratch.browser.newContext({ viewport: DESKTOP })
    const page = await view(context, viewerUrl())
    await eventually(async () => (await analytics()).views === 1, 'the view')
    await goTo(page, 0)
    await page.waitForTimeout(3_000) // on slide 1, as a reader would be
    await goTo(page, 2)
    await page.waitForTimeout(6_000) // on slide 3
    await page.goto('about:blank') // leaves: the page's last beacon carries the summary
    const a = await eventually(async () => {
      const now = await analytics()
      return now.recentViews.some((v: { type: string }) => v.type === 'ended') && now
    }, 'the leaving beacon')
    const on = (n: number) => a.slides.find((p: { slide: number }) => p.slide === n)
    expect(a.views).toBe(1)
    expect(a.botViews).toBe(0)
    expect(on(3).totalTimeSeconds).toBeGreaterThan(on(1).totalTimeSeconds)
    expect(on(3).title).toBe('Vertical Slides')
    expect(a.dropOff).toEqual([{ slide: 3, views: 1 }])
    expect(a.returningViews).toBe(0)
    expect(a.recentViews.at(-1).text).toMatch(/^A viewer read 2 of \d+ slides in \d+ s, longest on slide 3$/) // 1 and 3: it went straight to 3

    // The same browser again: returning, and still one view per visit.
    const again = await view(context, viewerUrl())
    await eventually(async () => (await analytics()).views === 2, 'the second view')
    expect((await analytics()).returningViews).toBe(1)
    await again.close()
    await context.close()
  })

  it('counts a recipient link’s view on the link, and shows a revoked one as ended', async () => {
    const link = (await s.api.send(createLink, { params: { id }, body: { name: 'Dana at Acme' } })).body.link
    const context = await scratch.browser.newContext({ viewport: DESKTOP })
    const page = await view(context, viewerUrl(`?link=${link.id}`))
    await eventually(async () => (await analytics()).links.find((l: { id: string }) => l.id === link.id).views === 1, 'the link’s view')
    await page.close()
    await s.api.send(revokeLink, { params: { id, linkId: link.id } })
    const ended = await view(context, viewerUrl(`?link=${link.id}`))
    await expect.poll(() => ended.locator('h1').textContent()).toBe('This link was turned off')
    await context.close()
  })
})

describe('the dashboard hears of a view as it happens', () => {
  it('shows a view starting, then its summary, without waiting for its 10 s poll', async () => {
    await s.api.send(updateFolio, { params: { id }, body: { notifyViews: true } })
    const owner = await scratch.browser.newContext({ viewport: { width: 1440, height: 900 } })
    const dashboard = await owner.newPage()
    await dashboard.goto(s.api.url(dashboardPage))
    const card = dashboard.locator(`article[data-id="${id}"]`)
    await card.waitFor()
    const viewer = await scratch.browser.newContext({ viewport: DESKTOP })
    const page = await view(viewer, viewerUrl())
    // A toast and the card's "latest view" line, long before the next poll.
    await expect.poll(() => card.locator('.last-view').textContent(), { timeout: 5_000 }).toMatch(/^A viewer opened it/)
    await goTo(page, 1)
    await page.waitForTimeout(1_500)
    await page.goto('about:blank')
    await expect.poll(() => card.locator('.last-view').textContent(), { timeout: 5_000 }).toMatch(/^A viewer read 2 of \d+ slides/)

    // The folio's page: the charts and the links panel.
    await dashboard.goto(s.api.url(folioPage, { id }))
    const readers = dashboard.locator('section.readers')
    await expect.poll(() => readers.getAttribute('aria-busy')).toBe('false')
    expect(await readers.locator('svg.chart-bars g[data-part="3"]').count()).toBe(1)
    expect(await readers.locator('svg.chart-line').getAttribute('aria-label')).toMatch(/^\d+ views in the last 30 days/)
    expect(await readers.locator('.link-row.revoked .link-name').textContent()).toBe('Dana at Acme')
    await readers.locator('input[name="name"]').fill('Lee at Initech')
    await readers.locator('button[type="submit"]').click()
    await expect.poll(() => readers.locator('.link-row.active .link-name').allTextContents()).toEqual(['Lee at Initech'])
    await dashboard.screenshot({ path: join(ARTIFACTS, 'dashboard-readers.png'), fullPage: true })
    await owner.close()
    await viewer.close()
  })
})
