import { readFile } from 'node:fs/promises'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listComments } from '../src/api/engagement.js'
import { sharePage } from '../src/api/viewer.js'
import type { Comment } from '../src/domain/model.js'
import { eventually, launchBrowser } from './helpers/browser.js'
import { dashboardPage, deck, documentPage } from './helpers/folio-fixtures.js'
import {
  activeSlide,
  closePage,
  commentOn,
  DESKTOP,
  expectPinHidden,
  expectPinOn,
  folioFrame,
  openPage,
  PHONE,
  pressInFolio,
  shot,
} from './helpers/share-page.js'
import { useServer } from './helpers/use-server.js'

/**
 * Issue 9: a pin records its element, and is drawn on that element at any width and only while
 * it can be seen (its own slide). Real Chromium, at 1440×900 and 390×844, on three realistic
 * folios (test/helpers/folio-fixtures.ts).
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

async function publish(title: string, html: string): Promise<string> {
  return s.api.create(title, { 'index.html': html }, { status: 'published' })
}

/** Posts a comment on `selector` from the page; answers the stored comment. */
async function pin(page: Page, id: string, selector: string, text: string): Promise<Comment> {
  const before = (await s.api.send(listComments, { params: { id } })).body.length
  await commentOn(page, selector, text)
  return eventually(async () => {
    const list: Comment[] = (await s.api.send(listComments, { params: { id } })).body
    return list.length === before + 1 && list.find((c) => c.text === text)
  }, `the comment “${text}”`)
}

const CELL = '.slide:nth-of-type(3) tbody tr:nth-child(3) td:nth-child(4)' // “+31%”
const NOTE = '.slide:nth-of-type(4) .note'

describe('pins on a 5-slide deck', () => {
  it('sit on their element at both widths, and only on their own slide', async () => {
    const id = await publish('QBR deck', deck())
    const url = s.api.url(sharePage, { id })

    const desk = await openPage(browser, url, DESKTOP, pageErrors)
    await (await folioFrame(desk)).locator('.slide.active').waitFor()
    await pressInFolio(desk, 'ArrowRight', 'ArrowRight')
    await expect.poll(() => activeSlide(desk)).toBe(3)
    const onCell = await pin(desk, id, CELL, 'Is East really +31%?')
    expect(onCell.anchor).toMatchObject({ quote: '+31%', slide: 2, hash: '#3', viewport: { width: DESKTOP.width } })
    expect(onCell.anchor!.offsetX).toBeGreaterThan(0)
    expect(onCell.anchor!.offsetX).toBeLessThan(100)
    await expectPinOn(desk, onCell.id, CELL)
    await shot(desk, 'deck-desktop-slide3')

    // The phone opens at the cover: the pin waits on slide 3.
    const phone = await openPage(browser, url, PHONE, pageErrors)
    await expect.poll(() => activeSlide(phone)).toBe(1)
    await expectPinHidden(phone, onCell.id, CELL)
    await pressInFolio(phone, 'ArrowRight', 'ArrowRight')
    await expectPinOn(phone, onCell.id, CELL)
    await shot(phone, 'deck-phone-slide3')
    await pressInFolio(phone, 'ArrowLeft')
    await expectPinHidden(phone, onCell.id, CELL)
    // Hash navigation does the same.
    await (await folioFrame(phone)).evaluate(() => {
      location.hash = '#3'
    })
    await expectPinOn(phone, onCell.id, CELL)
    await (await folioFrame(phone)).evaluate(() => {
      location.hash = '#5'
    })
    await expectPinHidden(phone, onCell.id, CELL)

    // A pin made on the phone, on slide 4, shows on the desktop on slide 4 only.
    await (await folioFrame(phone)).evaluate(() => {
      location.hash = '#4'
    })
    const onNote = await pin(phone, id, NOTE, 'Name the launches')
    expect(onNote.anchor).toMatchObject({ quote: 'Two launches, no incidents.', slide: 3, viewport: { width: PHONE.width } })
    await expectPinOn(phone, onNote.id, NOTE)
    await expectPinHidden(desk, onNote.id, NOTE)
    await pressInFolio(desk, 'ArrowRight')
    await expectPinOn(desk, onNote.id, NOTE)
    await expectPinHidden(desk, onCell.id, CELL)
    await shot(desk, 'deck-desktop-slide4')

    // The panel lists each comment under its slide.
    await desk.locator('button.count-button').click()
    await expect.poll(() => desk.locator('#comments-panel .group h3').allTextContents()).toEqual(['Slide 3', 'Slide 4'])
    await expect.poll(() => desk.locator('#comments-panel .group.current h3').textContent()).toBe('Slide 4')
    // Choosing a comment on another slide goes to that slide.
    await desk.locator('#comments-panel .comment', { hasText: 'Is East really' }).click()
    await expect.poll(() => activeSlide(desk)).toBe(3)
    await expectPinOn(desk, onCell.id, CELL)
    await closePage(desk)
    await closePage(phone)
  })
})

describe('slides told apart', () => {
  const REVEAL_LIKE = `<!doctype html><html><head><style>
    .reveal .slides > section { display: none; } .reveal .slides > section.present { display: block; }
  </style></head><body><div class="reveal"><div class="slides">
    <section class="present"><h2>Intro</h2></section><section class="future"><h2>Plan</h2><p id="plan">Ship in May</p></section>
  </div></div><script>
    addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowRight') return
      const all = [...document.querySelectorAll('.slides > section')]
      const i = all.findIndex((s) => s.classList.contains('present'))
      all.forEach((s, n) => { s.className = n === i + 1 ? 'present' : n < i + 1 ? 'past' : 'future' })
    })
  </script></body></html>`
  // Shown by the hash alone: no class marks the slide on screen.
  const HASH_ONLY = `<!doctype html><html><body><section><h2>One</h2></section><section><h2>Two</h2><p id="two">Second</p></section>
    <script>const show = () => document.querySelectorAll('section').forEach((s, i) => { s.hidden = i !== (parseInt(location.hash.slice(1), 10) || 1) - 1 })
    addEventListener('hashchange', show); show()</script></body></html>`

  it('records the slide of the starter deck, a reveal.js-like deck and a deck known by its hash', async () => {
    const starter = (await readFile(new URL('../templates/starters/deck.html', import.meta.url), 'utf8')).replaceAll('{{title}}', 'Starter')
    const cases = [
      { html: starter, go: async (page: Page) => pressInFolio(page, 'ArrowRight', 'ArrowRight'), target: '.slide:nth-of-type(3) h2', slide: 2 },
      { html: REVEAL_LIKE, go: async (page: Page) => pressInFolio(page, 'ArrowRight'), target: '#plan', slide: 1 },
      {
        html: HASH_ONLY,
        go: async (page: Page) =>
          (await folioFrame(page)).evaluate(() => {
            location.hash = '#2'
          }),
        target: '#two',
        slide: 1,
      },
    ]
    for (const { html, go, target, slide } of cases) {
      const id = await publish('Deck', html)
      const page = await openPage(browser, s.api.url(sharePage, { id }), DESKTOP, pageErrors)
      await (await folioFrame(page)).locator('section').first().waitFor({ state: 'attached' })
      await go(page)
      await (await folioFrame(page)).locator(target).waitFor({ state: 'visible' })
      const c = await pin(page, id, target, 'On this slide')
      expect(c.anchor?.slide, target).toBe(slide)
      await expectPinOn(page, c.id, target)
      await closePage(page)
    }
  })
})

describe('pins on a long document with a table', () => {
  it('follow a table cell when the table turns into cards on a phone', async () => {
    const id = await publish('Status report', documentPage())
    const url = s.api.url(sharePage, { id })
    const OWNER = 'table.projects tbody tr:nth-child(3) td:nth-child(2)' // Chloé
    const STATUS = 'table.projects tbody tr:nth-child(4) td:nth-child(3)' // Late

    const desk = await openPage(browser, url, DESKTOP, pageErrors)
    await (await folioFrame(desk)).locator('table.projects').waitFor()
    const onOwner = await pin(desk, id, OWNER, 'Chloé is on leave in November')
    expect(onOwner.anchor).toMatchObject({ quote: 'Chloé' })
    expect(onOwner.anchor!.slide).toBeUndefined()
    await expectPinOn(desk, onOwner.id, OWNER)
    await shot(desk, 'document-desktop')

    const phone = await openPage(browser, url, PHONE, pageErrors)
    await expectPinOn(phone, onOwner.id, OWNER)
    const onStatus = await pin(phone, id, STATUS, 'Why late?')
    await expectPinOn(phone, onStatus.id, STATUS)
    await (await folioFrame(phone)).locator(OWNER).scrollIntoViewIfNeeded()
    await shot(phone, 'document-phone')
    await expectPinOn(desk, onStatus.id, STATUS)
    await closePage(desk)
    await closePage(phone)
  })

  it('hide while their element cannot be seen: a closed <details>, scrolled away in its box', async () => {
    const id = await publish('Status report', documentPage())
    const page = await openPage(browser, s.api.url(sharePage, { id }), DESKTOP, pageErrors)
    const frame = await folioFrame(page)
    const METHOD = 'details.appendix p'
    const LINE = '.log p:nth-child(2)'
    await frame.locator('details.appendix summary').click()
    const onMethod = await pin(page, id, METHOD, 'Which billing system?')
    await expectPinOn(page, onMethod.id, METHOD)
    await frame.locator('details.appendix summary').click()
    await expectPinHidden(page, onMethod.id, METHOD)
    await frame.locator('details.appendix summary').click()
    await expectPinOn(page, onMethod.id, METHOD)

    const onLine = await pin(page, id, LINE, 'What changed on the 2nd?')
    await expectPinOn(page, onLine.id, LINE)
    await frame.locator('.log').evaluate((box) => {
      box.scrollTop = box.scrollHeight
    })
    await expectPinHidden(page, onLine.id, LINE)
    await frame.locator('.log').evaluate((box) => {
      box.scrollTop = 0
    })
    await expectPinOn(page, onLine.id, LINE)
    await closePage(page)
  })
})

describe('pins on a chart dashboard', () => {
  it('stay on a chart point of an SVG that scales with the width', async () => {
    const id = await publish('Sales dashboard', dashboardPage())
    const url = s.api.url(sharePage, { id })
    const SEP = 'circle[data-month="Sep"]'
    const CONVERSION = '.kpi:nth-child(3) b'

    const desk = await openPage(browser, url, DESKTOP, pageErrors)
    await (await folioFrame(desk)).locator(SEP).waitFor()
    const onSep = await pin(desk, id, SEP, 'September spike: the campaign?')
    expect(onSep.anchor).toMatchObject({ selector: SEP, quote: 'Sep: 74k' })
    await expectPinOn(desk, onSep.id, SEP)
    await shot(desk, 'dashboard-desktop')

    const phone = await openPage(browser, url, PHONE, pageErrors)
    await expectPinOn(phone, onSep.id, SEP)
    // Not between its neighbours: nearer Sep than Aug or Oct.
    const frame = await folioFrame(phone)
    const xs = await frame.evaluate(() => ['Aug', 'Sep', 'Oct'].map((m) => document.querySelector(`circle[data-month="${m}"]`)!.getBoundingClientRect().x))
    const pinX = await frame.evaluate(
      (id) => document.querySelector('folio-pins')!.shadowRoot!.querySelector<HTMLElement>(`[data-comment-id="${id}"]`)!.getBoundingClientRect().x + 13,
      onSep.id,
    )
    expect(Math.abs(pinX - xs[1]!)).toBeLessThan(Math.abs(pinX - xs[0]!))
    expect(Math.abs(pinX - xs[1]!)).toBeLessThan(Math.abs(pinX - xs[2]!))
    const onKpi = await pin(phone, id, CONVERSION, 'Conversion down from 3.4%')
    await expectPinOn(phone, onKpi.id, CONVERSION)
    await shot(phone, 'dashboard-phone')
    await expectPinOn(desk, onKpi.id, CONVERSION)

    // The window narrows under an open page: the pins move with their elements.
    await desk.setViewportSize({ width: 700, height: 900 })
    await expectPinOn(desk, onSep.id, SEP)
    await expectPinOn(desk, onKpi.id, CONVERSION)
    await closePage(desk)
    await closePage(phone)
  })
})
