import type { Frame, Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { listComments } from '../src/api/engagement.js'
import { sharePage } from '../src/api/viewer.js'
import type { Comment } from '../src/domain/model.js'
import { eventually, useBrowserAndFolder } from './helpers/browser.js'
import { runCli } from './helpers/cli.js'
import { CHARTS, chartDashboard, MARP, marpDeck, REVEAL, revealDemo } from './helpers/real-decks.js'
import { closePage, commentOn, DESKTOP, expectPinOn, folioFrame, openPage, pathOf, PHONE, pressInFolio, shot } from './helpers/share-page.js'
import { useServer } from './helpers/use-server.js'

/**
 * Real decks in the frame (design.md, “The far end of the link”): reveal.js's own demo, a deck
 * rendered by marp-core and a chart.js dashboard, published with the CLI as a user does, viewed
 * in Chromium at 1440×900 and 390×844. The folio runs in an opaque origin; whatever it needs to
 * start (storage, history) must work there, and a comment made on slide 3 must say slide 3 and
 * its element at the other width too.
 */
const s = useServer()
const scratch = useBrowserAndFolder('folio-real-decks-')

type Viewport = typeof DESKTOP
const other = (viewport: Viewport): Viewport => (viewport === DESKTOP ? PHONE : DESKTOP)
const named = (viewport: Viewport) => `${viewport.width}×${viewport.height}`

/** `folio create --dir <folder> --publish --json` against the test server, as a user runs it. */
async function publish(dir: string): Promise<string> {
  const created = await runCli(['create', '--dir', dir, '--publish', '--json'], { FOLIO_URL: s.ts.url })
  expect(created.code, created.stderr).toBe(0)
  const { id, status } = created.json()
  expect(status).toBe('published')
  return id
}

interface Viewer {
  page: Page
  /** Page errors and console errors of the share page and its frames. */
  errors: string[]
}

/**
 * The share page of folio `id` in a context of its own, its errors collected from the start.
 * Requests off the test server are aborted: the reveal.js demo links images, a video and an
 * iframe on static.slid.es, giphy.com and hakim.se, and a test must not depend on the internet.
 */
async function open(id: string, viewport: Viewport): Promise<Viewer> {
  const errors: string[] = []
  const origin = new URL(s.ts.url).origin
  const page = await openPage(scratch.browser, s.api.url(sharePage, { id }), viewport, errors, async (page) => {
    await page.route(
      (url) => url.origin !== origin,
      (route) => route.abort('blockedbyclient'),
    )
    page.on('console', (message) => {
      if (message.type() !== 'error') return
      const at = message.location().url
      // The only errors let through: a resource off the test server that the test itself blocked
      // above (the demo's remote images). Not the frame's doing: without the block they would load.
      if (/^Failed to load resource: net::ERR_BLOCKED_BY_CLIENT/.test(message.text()) && at && new URL(at).origin !== origin) return
      errors.push(`console.error at ${at || '?'}: ${message.text()}`)
    })
  })
  return { page, errors }
}

/** Posts a comment on `selector` through the share page's UI; answers the stored comment. */
async function pin(viewer: Viewer, id: string, selector: string, text: string, position?: { x: number; y: number }): Promise<Comment> {
  const before = (await s.api.send(listComments, { params: { id } })).body.length
  await commentOn(viewer.page, selector, text, position)
  return eventually(async () => {
    const list: Comment[] = (await s.api.send(listComments, { params: { id } })).body
    return list.length === before + 1 && list.find((c) => c.text === text)
  }, `the comment “${text}”`)
}

/** What the stored selector names in the frame now: whether it is the element `path` names, and its text. */
async function whatSelectorNames(frame: Frame, selector: string, path: string) {
  return frame.evaluate(
    ({ selector, path }) => {
      let el: Element | null = null
      try {
        el = document.querySelector(selector)
      } catch {
        return { same: false, text: `(not a selector: ${selector})` }
      }
      return { same: el !== null && el === document.querySelector(path), text: (el?.textContent ?? '').replace(/\s+/g, ' ').trim() }
    },
    { selector, path },
  )
}

/** The heading of the comment list's group that holds comment `commentId`. */
async function listLabel(page: Page, commentId: string): Promise<string | null> {
  return page.evaluate((commentId) => {
    const item = document.querySelector(`#comments-panel li.thread[data-thread="${commentId}"]`)
    if (!item) return '(not listed)'
    for (let li = item.previousElementSibling; li; li = li.previousElementSibling) {
      if (li.classList.contains('group')) return li.querySelector('h3')?.textContent ?? ''
    }
    return null // no heading above it
  }, commentId)
}

/** The comments panel open (the count button toggles it; on a phone, choosing a comment closes it). */
async function openList(page: Page): Promise<void> {
  if (await page.locator('#comments-panel').isVisible()) return
  await page.locator('button.count-button').click()
  await expect.poll(() => page.locator('#comments-panel').isVisible()).toBe(true)
}

/** A click on the comment's entry in the list, as a viewer chooses it. */
async function chooseInList(page: Page, commentId: string): Promise<void> {
  await openList(page)
  await page.locator(`#comments-panel button.comment[data-id="${commentId}"]`).click()
}

/** Whether the element `selector` names lies wholly inside the frame's viewport. */
async function inView(frame: Frame, selector: string): Promise<boolean> {
  return frame.evaluate((selector) => {
    const r = document.querySelector(selector)?.getBoundingClientRect()
    return Boolean(r && r.width > 0 && r.top >= -1 && r.left >= -1 && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1)
  }, selector)
}

/**
 * Waits for `check`; when it fails, the failure is recorded and the test goes on, so one run
 * reports every step a real deck trips on (and the errors it logged), not just the first.
 */
async function softly(check: Promise<unknown>): Promise<void> {
  await expect.soft(check.then(() => 'passed')).resolves.toBe('passed')
}

/** A quiet moment after starting, for late errors (a deck's layout pass, a timer) to come in. */
const settle = (page: Page) => page.waitForTimeout(1500)

/* ---------- reveal.js ---------- */

interface RevealState {
  loaded: boolean
  ready?: boolean
  view?: 'scroll' | 'slides'
  loading?: boolean
  h?: number
}

async function revealState(page: Page): Promise<RevealState> {
  const frame = await folioFrame(page)
  return frame.evaluate(() => {
    const R = (window as unknown as { Reveal?: any }).Reveal
    if (!R) return { loaded: false }
    return {
      loaded: true,
      ready: R.isReady(),
      view: R.isScrollView() ? 'scroll' : 'slides',
      // reveal.js sets it while it builds the scroll view and takes it off once that is done.
      loading: document.querySelector('.reveal-viewport')?.classList.contains('loading-scroll-mode') ?? false,
      h: R.getIndices().h,
    } as const
  })
}

/** reveal.js has started as it does at this width: slides at 1440, its scroll view below 435 px. */
async function expectRevealStarted(page: Page, viewport: Viewport): Promise<void> {
  const view = viewport.width < 435 ? 'scroll' : 'slides'
  await expect
    .poll(
      async () => {
        const r = await revealState(page)
        return r.loaded ? `ready=${r.ready} view=${r.view} loading=${r.loading}` : 'Reveal not loaded'
      },
      { timeout: 10_000 },
    )
    .toBe(`ready=true view=${view} loading=false`)
}

const revealSlide = async (page: Page) => (await revealState(page)).h

/** To the third slide the deck's own way: two presses of → on the slides, a scroll in the scroll view. */
async function revealToSlide3(page: Page, viewport: Viewport): Promise<void> {
  if (viewport === DESKTOP) {
    await pressInFolio(page, 'ArrowRight', 'ArrowRight')
  } else {
    await (await folioFrame(page)).locator(`h2:text-is("${REVEAL.heading}")`).evaluate((h2) => {
      ;(h2.closest('.scroll-page') ?? h2.closest('section'))!.scrollIntoView({ block: 'start' })
    })
  }
}

/** The deck says it shows slide `h` (Reveal.getIndices().h, 0-based). */
const expectRevealOn = (page: Page, h: number) => expect.poll(() => revealSlide(page), { timeout: 5_000 }).toBe(h)

describe('reveal.js: its own demo', () => {
  let id: string
  beforeAll(async () => {
    id = await publish(await revealDemo(scratch.folder))
  })

  for (const viewport of [DESKTOP, PHONE]) {
    it(`starts at ${named(viewport)} with no error from the frame`, async () => {
      const viewer = await open(id, viewport)
      await softly(expectRevealStarted(viewer.page, viewport))
      await settle(viewer.page)
      await shot(viewer.page, `real-reveal-${viewport.width}-start`)
      expect(viewer.errors).toEqual([])
      await closePage(viewer.page)
    })
  }

  for (const viewport of [DESKTOP, PHONE]) {
    const there = other(viewport)
    // Each width comments on its own element of slide 3, so the two tests' comments stay apart.
    const target =
      viewport === DESKTOP
        ? { locator: `h2:text-is("${REVEAL.heading}")`, quote: REVEAL.heading, text: 'Why vertical slides here?' }
        : { locator: `p:text-is("${REVEAL.paragraph}")`, quote: REVEAL.paragraph, text: 'Nested how deep?' }

    it(`keeps a comment made on slide 3 at ${named(viewport)} on its slide and element at ${named(there)}`, async () => {
      const here = await open(id, viewport)
      await softly(expectRevealStarted(here.page, viewport))
      await revealToSlide3(here.page, viewport)
      await softly(expectRevealOn(here.page, REVEAL.slide))
      const hereFrame = await folioFrame(here.page)
      const path = await pathOf(hereFrame, target.locator)
      const c = await pin(here, id, target.locator, target.text)
      expect.soft(c.anchor?.slide, 'anchor.slide (0-based)').toBe(REVEAL.slide)
      expect.soft(c.anchor?.quote, 'anchor.quote').toBe(target.quote)
      expect
        .soft(await whatSelectorNames(hereFrame, c.anchor!.selector, path), `what anchor.selector ${c.anchor!.selector} names`)
        .toEqual({ same: true, text: target.quote })
      await softly(expectPinOn(here.page, c.id, path))
      await shot(here.page, `real-reveal-${viewport.width}-commented`)

      // The other width, a viewer of its own: the pin is on the element once that slide is on screen.
      const away = await open(id, there)
      await softly(expectRevealStarted(away.page, there))
      await revealToSlide3(away.page, there)
      await softly(expectRevealOn(away.page, REVEAL.slide))
      const awayPath = await pathOf(await folioFrame(away.page), target.locator)
      await softly(expectPinOn(away.page, c.id, awayPath))
      await shot(away.page, `real-reveal-${there.width}-pin`)

      // From the first slide, the list's entry brings the deck back to slide 3, pin on its element.
      await (await folioFrame(away.page)).evaluate(() => (window as unknown as { Reveal: any }).Reveal.slide(0, 0))
      await softly(expectRevealOn(away.page, 0))
      await openList(away.page)
      await softly(expect.poll(() => listLabel(away.page, c.id)).toBe('Slide 3'))
      await chooseInList(away.page, c.id)
      await softly(expectRevealOn(away.page, REVEAL.slide))
      await softly(expectPinOn(away.page, c.id, awayPath))
      await shot(away.page, `real-reveal-${there.width}-jumped`)

      // And from a slide further on: slide 5, whose hash is #/4 (reveal.js counts from 0 in its hash).
      await (await folioFrame(away.page)).evaluate(() => (window as unknown as { Reveal: any }).Reveal.slide(4, 0))
      await softly(expectRevealOn(away.page, 4))
      await chooseInList(away.page, c.id)
      await softly(expectRevealOn(away.page, REVEAL.slide))
      await softly(expectPinOn(away.page, c.id, awayPath))

      expect([...here.errors, ...away.errors]).toEqual([])
      await closePage(here.page)
      await closePage(away.page)
    }, 150_000)
  }
})

/* ---------- Marp ---------- */

/** Slide `box` is what the viewer sees: wholly in view, or covering the middle of the viewport. */
async function marpSlideShown(page: Page, box: string): Promise<boolean> {
  return (await folioFrame(page)).evaluate((box) => {
    const r = document.querySelector(box)!.getBoundingClientRect()
    const whole = r.top >= -1 && r.bottom <= innerHeight + 1
    return whole || (r.top <= innerHeight / 2 && r.bottom >= innerHeight / 2)
  }, box)
}

async function marpToSlide3(page: Page): Promise<void> {
  await (await folioFrame(page)).locator(MARP.slideBox).evaluate((svg) => svg.scrollIntoView({ block: 'start' }))
  await expect.poll(() => marpSlideShown(page, MARP.slideBox)).toBe(true)
}

describe('Marp: a deck rendered by marp-core', () => {
  let id: string
  beforeAll(async () => {
    id = await publish(await marpDeck(scratch.folder))
  })

  for (const viewport of [DESKTOP, PHONE]) {
    it(`starts at ${named(viewport)} with no error from the frame`, async () => {
      const viewer = await open(id, viewport)
      await (await folioFrame(viewer.page)).locator(MARP.slideBox).waitFor()
      await settle(viewer.page)
      expect(viewer.errors).toEqual([])
      await closePage(viewer.page)
    })
  }

  for (const viewport of [DESKTOP, PHONE]) {
    const there = other(viewport)
    const target =
      viewport === DESKTOP
        ? { selector: MARP.cell, quote: MARP.cellText, text: 'Is East really +31%?' }
        : { selector: MARP.point, quote: MARP.pointText, text: 'Which plan for West?' }

    it(`keeps a comment made on slide 3 at ${named(viewport)} on its slide and element at ${named(there)}`, async () => {
      const here = await open(id, viewport)
      const hereFrame = await folioFrame(here.page)
      await hereFrame.locator(target.selector).waitFor()
      await marpToSlide3(here.page)
      const c = await pin(here, id, target.selector, target.text)
      expect.soft(c.anchor?.slide, 'anchor.slide (0-based)').toBe(MARP.slide)
      expect.soft(c.anchor?.quote, 'anchor.quote').toBe(target.quote)
      expect
        .soft(await whatSelectorNames(hereFrame, c.anchor!.selector, target.selector), `what anchor.selector ${c.anchor!.selector} names`)
        .toEqual({ same: true, text: target.quote })
      await softly(expectPinOn(here.page, c.id, target.selector))
      await shot(here.page, `real-marp-${viewport.width}-commented`)

      const away = await open(id, there)
      const awayFrame = await folioFrame(away.page)
      await awayFrame.locator(target.selector).waitFor()
      await marpToSlide3(away.page)
      await softly(expectPinOn(away.page, c.id, target.selector))

      // From the top: at 1440 slide 3 is then out of sight (on a phone all five fit in 1.3 screens).
      await awayFrame.evaluate(() => scrollTo(0, 0))
      if (there === DESKTOP) expect(await marpSlideShown(away.page, MARP.slideBox), 'slide 3 out of sight at the top').toBe(false)
      await openList(away.page)
      await softly(expect.poll(() => listLabel(away.page, c.id)).toBe('Slide 3'))
      await chooseInList(away.page, c.id)
      await softly(expect.poll(() => marpSlideShown(away.page, MARP.slideBox)).toBe(true))
      await softly(expect.poll(() => inView(awayFrame, target.selector)).toBe(true))
      await softly(expectPinOn(away.page, c.id, target.selector))
      await shot(away.page, `real-marp-${there.width}-jumped`)

      expect([...here.errors, ...away.errors]).toEqual([])
      await closePage(here.page)
      await closePage(away.page)
    }, 150_000)
  }
})

/* ---------- Chart.js ---------- */

/** Every chart drawn by chart.js (Chart.getChart knows each canvas) at a size. */
async function chartsDrawn(page: Page): Promise<string> {
  return (await folioFrame(page)).evaluate((ids) => {
    const C = (window as unknown as { Chart?: { getChart(c: Element): { width: number } | undefined } }).Chart
    if (!C) return 'Chart not loaded'
    return ids
      .map((sel) => {
        const chart = C.getChart(document.querySelector(sel)!)
        return `${sel}: ${chart && chart.width > 0 ? 'drawn' : 'not drawn'}`
      })
      .join(', ')
  }, CHARTS.charts)
}

const allDrawn = CHARTS.charts.map((sel) => `${sel}: drawn`).join(', ')

describe('Chart.js: a dashboard', () => {
  let id: string
  beforeAll(async () => {
    id = await publish(await chartDashboard(scratch.folder))
  })

  for (const viewport of [DESKTOP, PHONE]) {
    it(`starts at ${named(viewport)} with no error from the frame`, async () => {
      const viewer = await open(id, viewport)
      await softly(expect.poll(() => chartsDrawn(viewer.page), { timeout: 10_000 }).toBe(allDrawn))
      await settle(viewer.page)
      expect(viewer.errors).toEqual([])
      await closePage(viewer.page)
    })
  }

  for (const viewport of [DESKTOP, PHONE]) {
    const there = other(viewport)
    const text = viewport === DESKTOP ? 'What happened in week 7?' : 'Sign-ups per plan?'
    // Not both in the middle of the canvas: the other test's pin would take the tap there.
    const at = viewport === DESKTOP ? undefined : { x: 60, y: 60 }

    it(`keeps a comment on the second chart made at ${named(viewport)} on that canvas at ${named(there)}`, async () => {
      const here = await open(id, viewport)
      await expect.poll(() => chartsDrawn(here.page), { timeout: 10_000 }).toBe(allDrawn)
      const hereFrame = await folioFrame(here.page)
      await hereFrame.locator(CHARTS.section).evaluate((section) => section.scrollIntoView({ block: 'start' }))
      const c = await pin(here, id, CHARTS.canvas, text, at)
      expect.soft(c.anchor?.slide, 'a dashboard has no slides').toBeUndefined()
      expect.soft(c.anchor?.quote, 'the canvas’s label').toBe(CHARTS.label)
      expect
        .soft(await whatSelectorNames(hereFrame, c.anchor!.selector, CHARTS.canvas), `what anchor.selector ${c.anchor!.selector} names`)
        .toEqual({ same: true, text: '' })
      await softly(expectPinOn(here.page, c.id, CHARTS.canvas))
      await shot(here.page, `real-charts-${viewport.width}-commented`)

      const away = await open(id, there)
      await expect.poll(() => chartsDrawn(away.page), { timeout: 10_000 }).toBe(allDrawn)
      const awayFrame = await folioFrame(away.page)
      await awayFrame.locator(CHARTS.section).evaluate((section) => section.scrollIntoView({ block: 'start' }))
      await softly(expectPinOn(away.page, c.id, CHARTS.canvas))

      // From the top of the page (where the second chart is not wholly in view) the list's entry scrolls to it.
      await awayFrame.evaluate(() => scrollTo(0, 0))
      expect(await inView(awayFrame, CHARTS.canvas), 'the second chart is below the fold at the top').toBe(false)
      await openList(away.page)
      await away.page.locator(`#comments-panel button.comment[data-id="${c.id}"]`).waitFor()
      expect.soft(String(await listLabel(away.page, c.id)), 'no slide heading over a dashboard’s comment').not.toMatch(/^Slide/)
      await chooseInList(away.page, c.id)
      await softly(expect.poll(() => inView(awayFrame, CHARTS.canvas)).toBe(true))
      await softly(expectPinOn(away.page, c.id, CHARTS.canvas))
      await shot(away.page, `real-charts-${there.width}-jumped`)

      expect([...here.errors, ...away.errors]).toEqual([])
      await closePage(here.page)
      await closePage(away.page)
    }, 150_000)
  }
})
