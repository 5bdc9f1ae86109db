import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getBrief, getFolio } from '../src/api/files.js'
import { dashboardPage, folioPage } from '../src/api/viewer.js'
import { ARTIFACTS, eventually, launchBrowser } from './helpers/browser.js'
import { seedInbox } from './helpers/inbox-seed.js'
import { useServer } from './helpers/use-server.js'

// Issue 9: the author's inbox. Every comment of every version, per folio and per page or
// slide, replies under their thread, outdated and deleted ones marked; the owner resolves,
// reopens, deletes and restores from there.
const s = useServer({ config: { rateLimits: { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 } } })
let browser: Browser
const pageErrors: string[] = []

beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  expect(pageErrors).toEqual([])
})

const DESKTOP = { width: 1440, height: 900 }
const PHONE = { width: 390, height: 844 }

async function open(url: string, viewport = DESKTOP): Promise<Page> {
  const page = await browser.newPage({ viewport, deviceScaleFactor: 1 })
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
  await page.goto(url)
  return page
}

const comments = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments as any[]
const commentOf = async (id: string, commentId: string) => (await comments(id)).find((c) => c.id === commentId)
const item = (page: Page, commentId: string) => page.locator(`li.comment[data-comment-id="${commentId}"]`)
/** The page is no wider than the screen: nothing to scroll sideways. */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

describe('the inbox on the dashboard', () => {
  it('lists every comment per folio and slide, replies under their comment, outdated and deleted ones marked', async () => {
    const { deck, doc, c } = await seedInbox(s.ts, s.api)
    const page = await open(s.api.url(dashboardPage))
    const section = page.locator(`.inbox-folio[data-id="${deck}"]`)
    await section.waitFor()
    // Per page and slide, in reading order: slide 2 (the outdated pin), slide 3, then the pins without a slide.
    expect(await section.locator('.inbox-page h4').allTextContents()).toEqual(['index.html · Slide 2', 'index.html · Slide 3', 'index.html'])
    const slide3 = section.locator('.inbox-page', { hasText: 'Slide 3' })
    expect(await slide3.locator(':scope > ol > li.comment').count()).toBe(1)
    // The reply sits under its comment, not beside it.
    expect(await item(page, c.kpi.id).locator('ol.replies li.comment').getAttribute('data-comment-id')).toBe(c.reply.id)
    expect(await item(page, c.kpi.id).locator('.quote').first().textContent()).toBe('on “+31%”')
    expect(await item(page, c.outdated.id).locator('.badge').textContent()).toBe('Outdated')
    expect(await item(page, c.earlier.id).locator('.badge').textContent()).toBe('On v1')
    expect(await item(page, c.deleted.id).locator('.badge').textContent()).toBe('Deleted by a viewer')
    expect(
      await item(page, c.deleted.id)
        .getByRole('button', { name: /^Restore/ })
        .isVisible(),
    ).toBe(true)
    // A link opens the owner's view of the share page at that comment.
    expect(
      await item(page, c.kpi.id)
        .getByRole('link', { name: /^Open on the share page/ })
        .first()
        .getAttribute('href'),
    ).toBe(`/share/${deck}?preview=1#comment=${c.kpi.id}`)
    // Newest activity first: the handbook's comment came last.
    const order = await page.locator('.inbox-folio').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id))
    expect(order.indexOf(doc)).toBeLessThan(order.indexOf(deck))
    // The card counts what the inbox shows: 4 open (the outdated one and the reply among them), 1 outdated.
    const card = page.locator(`article.card[data-id="${deck}"]`)
    expect(await card.locator('.stat', { hasText: 'Comments' }).locator('dd').textContent()).toBe('4')
    expect(await card.locator('.stat', { hasText: 'Outdated' }).locator('dd').textContent()).toBe('1')
    // …and the brief agrees: the same open comments, the same outdated one.
    const brief = (await s.api.send(getBrief, { params: { id: deck } })).body
    expect(brief.openComments).toHaveLength(4)
    expect(brief.openComments.filter((x: { outdated?: boolean }) => x.outdated)).toHaveLength(1)
    await page.screenshot({ path: join(ARTIFACTS, 'inbox-desktop.png') })
    // Filters: only what is outdated, then only what is deleted.
    await page.getByRole('button', { name: /^Outdated/ }).click()
    expect(await page.locator('li.comment').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.commentId))).toEqual([c.outdated.id])
    await page.getByRole('button', { name: /^Deleted/ }).click()
    expect(await page.locator('li.comment').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.commentId))).toEqual([c.deleted.id])
    await page.screenshot({ path: join(ARTIFACTS, 'inbox-deleted-filter.png') })
    await page.getByRole('button', { name: /^All/ }).click()
    await page.close()
  })

  it('resolves, reopens, deletes, restores and deletes for good, each reaching the API (desktop)', async () => {
    const { deck, c } = await seedInbox(s.ts, s.api, { deck: 'Moderated deck', doc: 'Moderated doc' })
    const page = await open(s.api.url(dashboardPage))
    const kpi = item(page, c.kpi.id)
    await kpi.waitFor()

    await kpi.getByRole('button', { name: /^Resolve \(Bo/ }).click()
    await eventually(async () => (await commentOf(deck, c.kpi.id)).resolved === true, 'the resolve')
    await expect.poll(() => kpi.locator('.comment-head .badge').first().textContent()).toBe('Resolved')
    // Resolving a thread resolves its replies.
    expect((await commentOf(deck, c.reply.id)).resolved).toBe(true)
    await expect.poll(() => item(page, c.reply.id).locator('.badge').textContent()).toBe('Resolved')
    // Focus stays on the same control, now the other way round.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Reopen')
    await page.screenshot({ path: join(ARTIFACTS, 'inbox-resolved.png') })
    await kpi.getByRole('button', { name: /^Reopen \(Bo/ }).click()
    await eventually(async () => (await commentOf(deck, c.kpi.id)).resolved === false, 'the reopen')
    expect((await commentOf(deck, c.reply.id)).resolved).toBe(false)
    await expect.poll(() => kpi.getByRole('button', { name: /^Resolve \(Bo/ }).isVisible()).toBe(true)

    // The owner's delete hides it from viewers; Undo in the message brings it back.
    const earlier = item(page, c.earlier.id)
    await earlier.getByRole('button', { name: /^Delete \(Ann/ }).click()
    await eventually(async () => (await commentOf(deck, c.earlier.id)).deletedBy === 'owner', 'the delete')
    await expect.poll(() => earlier.locator('.badge').textContent()).toBe('Deleted by you')
    await page.locator('#toast').getByRole('button', { name: 'Undo' }).click()
    await eventually(async () => (await commentOf(deck, c.earlier.id)).deletedAt === undefined, 'the undo')
    await expect.poll(() => earlier.locator('.badge').textContent()).toBe('On v1')

    // What a viewer deleted, the owner restores.
    const spam = item(page, c.deleted.id)
    await spam.getByRole('button', { name: /^Restore/ }).click()
    await eventually(async () => (await commentOf(deck, c.deleted.id)).deletedAt === undefined, 'the restore')
    await expect.poll(() => spam.locator('.badge').count()).toBe(0)
    // …or deletes it for good, after saying so.
    await spam.getByRole('button', { name: /^Delete \(Troll/ }).click()
    await expect.poll(() => spam.getByRole('button', { name: /^Delete for good/ }).isVisible()).toBe(true)
    await spam.getByRole('button', { name: /^Delete for good/ }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete this comment for good?' })
    await dialog.waitFor()
    await page.screenshot({ path: join(ARTIFACTS, 'inbox-delete-for-good.png') })
    await dialog.getByRole('button', { name: 'Delete for good' }).click()
    await eventually(async () => (await commentOf(deck, c.deleted.id)) === undefined, 'the removal')
    await expect.poll(() => spam.count()).toBe(0)
    await page.close()
  })

  it('works the same on a 390 px phone, without sideways scrolling', async () => {
    const { deck, c } = await seedInbox(s.ts, s.api, { deck: 'Phone deck', doc: 'Phone doc' })
    const page = await open(s.api.url(dashboardPage), PHONE)
    const outdated = item(page, c.outdated.id)
    await outdated.waitFor()
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await outdated.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'inbox-phone.png') })
    await outdated.getByRole('button', { name: /^Resolve \(Cy/ }).click()
    await eventually(async () => (await commentOf(deck, c.outdated.id)).resolved === true, 'the resolve')
    await outdated.getByRole('button', { name: /^Reopen \(Cy/ }).click()
    await eventually(async () => (await commentOf(deck, c.outdated.id)).resolved === false, 'the reopen')
    await item(page, c.reply.id)
      .getByRole('button', { name: /^Delete \(Ann/ })
      .click()
    await eventually(async () => (await commentOf(deck, c.reply.id)).deletedBy === 'owner', 'the delete')
    await item(page, c.reply.id)
      .getByRole('button', { name: /^Restore/ })
      .click()
    await eventually(async () => (await commentOf(deck, c.reply.id)).deletedAt === undefined, 'the restore')
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.close()
  })
})

describe("a folio's own page", () => {
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    it(`shows the folio, its versions and all its comments (${name})`, async () => {
      const { deck, c } = await seedInbox(s.ts, s.api, { deck: `Page deck ${name}`, doc: `Page doc ${name}` })
      const page = await open(s.api.url(folioPage, { id: deck }), viewport)
      await page.getByRole('heading', { level: 1, name: `Page deck ${name}` }).waitFor()
      expect(await page.title()).toBe(`Page deck ${name} · folio`)
      // Only this folio's comments, without a folio header of their own.
      await item(page, c.kpi.id).waitFor()
      expect(await page.locator('.inbox-folio').count()).toBe(1)
      expect(await page.locator('.inbox-folio-head').count()).toBe(0)
      expect(await item(page, c.typo.id).count()).toBe(0)
      expect(await page.locator('li.comment').count()).toBe(5)
      await page.getByText('Versions (2)').click()
      expect(await page.locator('.version-list li').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.version))).toEqual(['v2', 'v1'])
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      await page.screenshot({ path: join(ARTIFACTS, `folio-page-${name}.png`), fullPage: name === 'phone' })
      await page.close()
    })
  }

  it('says so for an unknown folio', async () => {
    const page = await open(s.api.url(folioPage, { id: 'nosuchfolio1' }))
    await expect.poll(() => page.locator('.empty h2').textContent()).toBe('No such folio')
    expect(await page.getByRole('link', { name: 'All folios' }).getAttribute('href')).toBe('/')
    await page.close()
  })
})
