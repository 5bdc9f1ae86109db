import { join } from 'node:path'
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core'
import { expect } from 'vitest'
import { ARTIFACTS } from './browser.js'

/** The two widths every pin must survive (issue 9). */
export const DESKTOP = { width: 1440, height: 900 }
export const PHONE = { width: 390, height: 844 }

/**
 * A share page in a context of its own (its own localStorage: a viewer of their own). `prepare`
 * runs before it loads (to route its requests, say).
 */
export async function openPage(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number },
  errors: string[],
  prepare?: (page: Page) => Promise<void>,
): Promise<Page> {
  const context: BrowserContext = await browser.newContext({ viewport, isMobile: viewport.width < 500, hasTouch: viewport.width < 500 })
  const page = await context.newPage()
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`))
  await prepare?.(page)
  await page.goto(url)
  return page
}

/**
 * For what the page knows only from its full comment list (GET /comments, asked at most every
 * 3 s: templates/viewer/share-comment-sets.js): a wait that covers that schedule on a busy machine.
 */
export const FULL_LIST = { timeout: 10_000 }

export interface HeldList {
  /** How many of the page's requests for its full list the server has answered so far. */
  served(): number
  /** Hands the answers held so far to the page, late. */
  release(): Promise<void>
}

/**
 * Holds the server's answers to the page's GET /comments, as a slow network would: each is what
 * the server said when asked, reaching the page only on release(), maybe after the page changed
 * something itself. The page asks again only once it has taken in the answer before.
 */
export async function holdFullList(page: Page): Promise<HeldList> {
  const held: Array<() => Promise<void>> = []
  let served = 0
  let released = false
  await page.route(
    (url) => /^\/api\/files\/[^/]+\/comments$/.test(url.pathname) && url.searchParams.has('limit'),
    async (route) => {
      if (route.request().method() !== 'GET') return route.fallback()
      const response = await route.fetch()
      const body = await response.body()
      served++
      // The page asks for the full list once its folio is painted, which may come after release():
      // a list asked for after it goes through, not held for ever.
      if (released) return route.fulfill({ response, body })
      held.push(() => route.fulfill({ response, body }))
    },
  )
  return {
    served: () => served,
    release: async () => {
      released = true
      for (const answer of held.splice(0)) await answer()
    },
  }
}

export async function closePage(page: Page): Promise<void> {
  await page.context().close()
}

/** The folio's frame (its URL is under /v/), once it is there. */
export async function folioFrame(page: Page): Promise<Frame> {
  let frame: Frame | undefined
  await expect.poll(() => (frame = page.frames().find((f) => f.url().includes('/v/')))?.url() ?? '', { timeout: 10_000 }).toContain('/v/')
  return frame!
}

export interface PinState {
  /** No pin with that comment id in the frame. */
  missing?: boolean
  hidden: boolean
  /** 'element' (on its anchored element) or 'page' (the x/y fallback). */
  placed?: string
  /** The pin's centre lies inside the element the selector names now. */
  onElement: boolean
  /** The pin's centre in the frame's viewport. */
  x: number
  y: number
}

/** Where the pin of comment `id` is, against the element `selector` names in the frame now. */
export async function pinState(page: Page, id: string, selector: string): Promise<PinState> {
  const frame = await folioFrame(page)
  return frame.evaluate(
    ({ id, selector }) => {
      const pin = document.querySelector('folio-pins')?.shadowRoot?.querySelector(`.pin[data-comment-id="${id}"]`) as HTMLElement | null
      if (!pin) return { missing: true, hidden: true, onElement: false, x: 0, y: 0 }
      const p = pin.getBoundingClientRect()
      const x = p.left + p.width / 2
      const y = p.top + p.height / 2
      const el = document.querySelector(selector)
      const r = el?.getBoundingClientRect()
      const onElement = Boolean(r && x >= r.left - 0.5 && x <= r.right + 0.5 && y >= r.top - 0.5 && y <= r.bottom + 0.5)
      return { hidden: pin.hidden, placed: pin.dataset.placed, onElement, x, y }
    },
    { id, selector },
  )
}

/** Waits until the pin is drawn on its element and visible. */
export async function expectPinOn(page: Page, id: string, selector: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const s = await pinState(page, id, selector)
        return `${s.missing ? 'missing' : s.hidden ? 'hidden' : 'shown'} ${s.placed} ${s.onElement ? 'on' : 'off'} the element`
      },
      { timeout: 10_000 },
    )
    .toBe('shown element on the element')
}

export async function expectPinHidden(page: Page, id: string, selector: string): Promise<void> {
  await expect.poll(async () => (await pinState(page, id, selector)).hidden, { timeout: 10_000 }).toBe(true)
}

/** Presses keys inside the folio (the frame has focus, as after a click on the slide). */
export async function pressInFolio(page: Page, ...keys: string[]): Promise<void> {
  await (await page.locator('iframe.frame').elementHandle())?.focus()
  for (const key of keys) await page.keyboard.press(key)
}

/** The deck's slide on screen (1-based), as the deck itself says. */
export async function activeSlide(page: Page): Promise<number> {
  const frame = await folioFrame(page)
  return frame.evaluate(() => [...document.querySelectorAll('.slide')].findIndex((s) => s.classList.contains('active')) + 1)
}

/**
 * Until the frame's bridge has said it is ready, comment mode cannot reach the folio (a click there
 * is the folio's own): the share page marks its stage once it has.
 */
export async function bridgeReady(page: Page): Promise<void> {
  await page.locator('.stage[data-bridge="ready"]').waitFor({ state: 'attached', timeout: 10_000 })
}

/** Comment mode on, a click on `selector` in the folio at (x, y) of its box, the form filled and posted. */
export async function commentOn(page: Page, selector: string, text: string, position?: { x: number; y: number }): Promise<void> {
  await bridgeReady(page)
  await page.getByRole('button', { name: 'Comment', exact: true }).click()
  const frame = await folioFrame(page)
  await frame.locator(selector).click({ position })
  await page.locator('#comment-text').fill(text)
  await page.getByRole('button', { name: 'Post' }).click()
  await expect.poll(() => page.locator('form.popover').isHidden()).toBe(true)
  await page.getByRole('button', { name: 'Commenting', exact: true }).click() // comment mode off again
}

export const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `issue9-${name}.png`) })

/** A selector (nth-child steps from <html>) for the element `locator` finds in the frame now (a deck's script may have moved it). */
export async function pathOf(frame: Frame, locator: string): Promise<string> {
  return frame.locator(locator).evaluate((el) => {
    const steps: string[] = []
    for (let node: Element | null = el; node && node !== document.documentElement; node = node.parentElement) {
      let i = 1
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) i++
      steps.unshift(`*:nth-child(${i})`)
    }
    return ['html', ...steps].join(' > ')
  })
}
