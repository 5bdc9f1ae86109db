import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, listComments } from '../src/api/engagement.js'
import { getBrief, updateFolio } from '../src/api/files.js'
import { sharePage } from '../src/api/viewer.js'
import type { Comment } from '../src/domain/model.js'
import { eventually, launchBrowser } from './helpers/browser.js'
import { deck, documentPage } from './helpers/folio-fixtures.js'
import {
  activeSlide,
  closePage,
  DESKTOP,
  expectPinHidden,
  expectPinOn,
  folioFrame,
  FULL_LIST,
  openPage,
  PHONE,
  pressInFolio,
  shot,
} from './helpers/share-page.js'
import { useServer } from './helpers/use-server.js'

/**
 * Issue 9: a new version keeps the viewer where they were and moves the pins with their
 * elements (the server re-anchors them); withdrawing a folio takes it off open pages at once.
 */
const s = useServer()
let browser: Browser
const pageErrors: string[] = []

beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  expect(pageErrors).toEqual([])
})

const publish = (title: string, html: string) => s.api.create(title, { 'index.html': html }, { status: 'published' })
const newVersion = (id: string, html: string) => s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': html } } })

/** A comment on the “+31%” cell of slide 3, as the share page would pin it at 1440×900. */
async function pinOnCell(id: string): Promise<Comment> {
  const reply = await s.api.send(createComment, {
    params: { id },
    body: {
      text: 'Is East really +31%?',
      versionId: 'v1',
      filename: 'index.html',
      x: 70,
      y: 50,
      selector: 'section:nth-of-type(3) > table > tbody > tr:nth-of-type(3) > td:nth-of-type(4)',
      anchor: {
        selector: 'body > main > section:nth-of-type(3) > table > tbody > tr:nth-of-type(3) > td:nth-of-type(4)',
        quote: '+31%',
        offsetX: 20,
        offsetY: 50,
        hash: '#3',
        slide: 2,
        viewport: DESKTOP,
      },
    },
  })
  expect(reply.status).toBe(200)
  return reply.body.comment
}

describe('a new version', () => {
  it('keeps the viewer on their slide, and the page is not reloaded', async () => {
    const id = await publish('QBR deck', deck())
    const page = await openPage(browser, s.api.url(sharePage, { id }), DESKTOP, pageErrors)
    await (await folioFrame(page)).locator('.slide.active').waitFor()
    await pressInFolio(page, 'ArrowRight', 'ArrowRight')
    await expect.poll(() => activeSlide(page)).toBe(3)
    await page.evaluate(() => ((window as unknown as { samePage: boolean }).samePage = true))
    await newVersion(id, deck().replace('<h2>Regional numbers</h2>', '<h2>Regional numbers, revised</h2>'))
    await expect
      .poll(async () => (await folioFrame(page)).evaluate(() => document.querySelector('.slide.active h2')?.textContent), { timeout: 10_000 })
      .toBe('Regional numbers, revised')
    expect(await activeSlide(page)).toBe(3)
    expect(await (await folioFrame(page)).evaluate(() => location.hash)).toBe('#3')
    expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true)
    await shot(page, 'version-kept-slide')
    await closePage(page)
  })

  it('keeps the viewer’s scroll position in a long document', async () => {
    const id = await publish('Status report', documentPage())
    const page = await openPage(browser, s.api.url(sharePage, { id }), PHONE, pageErrors)
    const frame = await folioFrame(page)
    await frame.locator('table.projects').waitFor()
    await frame.evaluate(() => window.scrollTo(0, 2400))
    await expect.poll(() => frame.evaluate(() => Math.round(scrollY))).toBe(2400)
    await newVersion(id, documentPage().replace('Status report, October', 'Status report, November'))
    await expect
      .poll(async () => (await folioFrame(page)).evaluate(() => document.querySelector('h1')?.textContent), { timeout: 10_000 })
      .toBe('Status report, November')
    await expect.poll(async () => (await folioFrame(page)).evaluate(() => Math.round(scrollY))).toBe(2400)
    await closePage(page)
  })

  it('moves a pin with its element, and lists it as outdated once the element is gone', async () => {
    const id = await publish('QBR deck', deck())
    const onCell = await pinOnCell(id)
    const page = await openPage(browser, s.api.url(sharePage, { id }), PHONE, pageErrors)
    await (await folioFrame(page)).locator('.slide.active').waitFor()
    await pressInFolio(page, 'ArrowRight', 'ArrowRight')
    const v1Cell = '.slide:nth-of-type(3) tbody tr:nth-child(3) td:nth-child(4)'
    await expectPinOn(page, onCell.id, v1Cell)

    // v2: a slide before it, and East's row first: the cell is on slide 4, row 1.
    const rows = [
      ['East', '0.7 M', '0.92 M', '+31%'],
      ['North', '1.2 M', '1.4 M', '+17%'],
      ['South', '0.9 M', '1.0 M', '+11%'],
    ]
    await newVersion(id, deck({ extraSlideBefore: 2, rows }))
    await eventually(async () => {
      const [c] = (await s.api.send(listComments, { params: { id } })).body as Comment[]
      return c?.anchoredVersionId === 'v2' && !c.outdated
    }, 'the server to re-anchor the pin on v2')
    // The viewer stays on slide 3 (now Highlights): the pin waits on slide 4.
    await expect.poll(() => activeSlide(page), { timeout: 10_000 }).toBe(3)
    const v2Cell = '.slide:nth-of-type(4) tbody tr:nth-child(1) td:nth-child(4)'
    await expectPinHidden(page, onCell.id, v2Cell)
    await pressInFolio(page, 'ArrowRight')
    await expectPinOn(page, onCell.id, v2Cell)
    await shot(page, 'version-moved-pin')
    await page.locator('button.count-button').click()
    await expect.poll(() => page.locator('#comments-panel .group h3').allTextContents()).toEqual(['Slide 4'])

    // v3: the table is gone. The comment is listed as outdated, with no pin.
    await newVersion(id, deck({ extraSlideBefore: 2, table: false }))
    await eventually(async () => {
      const [c] = (await s.api.send(listComments, { params: { id } })).body as Comment[]
      return c?.outdated === true
    }, 'the server to mark the pin outdated')
    await expect
      .poll(async () => (await folioFrame(page)).evaluate(() => document.querySelector('folio-pins')?.getAttribute('data-pin-count')), { timeout: 10_000 })
      .toBe('0')
    // Outdated is what the full list says (the page's own list has only what is on the page).
    await expect.poll(() => page.locator('#comments-panel .thread.outdated').getAttribute('data-thread'), FULL_LIST).toBe(onCell.id)
    expect(await page.locator('button.count-button').getAttribute('aria-label')).toBe('1 comment: show list')
    expect((await s.api.send(getBrief, { params: { id } })).body.openComments).toHaveLength(1) // the brief counts alike
    await shot(page, 'version-outdated')
    await closePage(page)
  })
})

describe('a folio withdrawn from an open share page', () => {
  it('leaves the screen within a second when unpublished, and comes back where the viewer was when republished', async () => {
    const id = await publish('QBR deck', deck())
    const page = await openPage(browser, s.api.url(sharePage, { id }), DESKTOP, pageErrors)
    await (await folioFrame(page)).locator('.slide.active').waitFor()
    await pressInFolio(page, 'ArrowRight', 'ArrowRight', 'ArrowRight')
    await expect.poll(() => activeSlide(page)).toBe(4)
    await new Promise((r) => setTimeout(r, 250)) // the bridge tells the page where the viewer is at most every 200 ms

    const started = Date.now()
    await s.api.send(updateFolio, { params: { id }, body: { status: 'draft' } })
    await page.locator('iframe.frame').waitFor({ state: 'detached', timeout: 1000 })
    expect(Date.now() - started).toBeLessThan(1000)
    expect(await page.locator('h1').first().textContent()).toBe('This folio is not published yet')
    expect(await page.content()).not.toContain('Regional numbers')
    await shot(page, 'revoked-draft')

    await s.api.send(updateFolio, { params: { id }, body: { status: 'published' } })
    await expect.poll(() => activeSlide(page), { timeout: 10_000 }).toBe(4)
    await closePage(page)
  })

  it('shows the key gate at once when made private, and the folio again when made public', async () => {
    const id = await publish('QBR deck', deck())
    const page = await openPage(browser, s.api.url(sharePage, { id }), DESKTOP, pageErrors)
    await (await folioFrame(page)).locator('.slide.active').waitFor()
    const started = Date.now()
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'blue whale' } })
    await page.locator('iframe.frame').waitFor({ state: 'detached', timeout: 1000 })
    expect(Date.now() - started).toBeLessThan(1000)
    await expect.poll(() => page.locator('#access-key').isVisible()).toBe(true)
    await shot(page, 'revoked-private')
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: false } })
    await expect.poll(async () => (await folioFrame(page)).locator('.slide.active h1').textContent(), { timeout: 10_000 }).toBe('Q3 2026')
    await closePage(page)
  })

  it('asks a viewer who unlocked a private folio for the key again when the key changes', async () => {
    const id = await publish('QBR deck', deck())
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'blue whale' } })
    const page = await openPage(browser, s.api.url(sharePage, { id }), DESKTOP, pageErrors)
    await page.locator('#access-key').fill('blue whale')
    await page.locator('#access-key').press('Enter')
    await (await folioFrame(page)).locator('.slide.active').waitFor()
    const started = Date.now()
    await s.api.send(updateFolio, { params: { id }, body: { accessKey: 'grey seal' } })
    await page.locator('iframe.frame').waitFor({ state: 'detached', timeout: 1000 })
    expect(Date.now() - started).toBeLessThan(1000)
    await page.locator('#access-key').fill('grey seal')
    await page.locator('#access-key').press('Enter')
    await expect.poll(async () => (await folioFrame(page)).locator('.slide.active h1').textContent(), { timeout: 10_000 }).toBe('Q3 2026')
    await closePage(page)
  })
})
