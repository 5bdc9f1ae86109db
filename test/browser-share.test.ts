import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, getReactions, listComments, react, recordAnalytics, resolveComment } from '../src/api/engagement.js'
import { deleteFolio, getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { uploadFile } from '../src/api/uploads.js'
import { dashboardPage, sharePage } from '../src/api/viewer.js'
import { ARTIFACTS, eventually, launchBrowser } from './helpers/browser.js'
import { tinyPng } from './helpers/images.js'
import { bridgeReady } from './helpers/share-page.js'
import { useServer } from './helpers/use-server.js'

const s = useServer()
let browser: Browser
/** Uncaught errors of the share pages' scripts: there must be none. */
const pageErrors: string[] = []

beforeAll(async () => {
  browser = await launchBrowser()
})
// Runs before useServer's close and log check (after-hooks run last first).
afterAll(async () => {
  await browser?.close()
  expect(pageErrors).toEqual([])
})

const SITE = {
  'index.html': `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="css/site.css"></head>
<body><main><h1 id="title">Quarterly review</h1><p>Numbers went up.</p><img id="logo" src="img/logo.png" alt="logo" width="40" height="40">
<a id="next" href="pages/two.html">Next page</a></main></body></html>`,
  'css/site.css': 'h1 { color: rgb(0, 128, 0); font-family: sans-serif } body { min-height: 900px }',
  'pages/two.html': '<!doctype html><html><body><h2 id="two">Page two</h2><a href="../index.html">back</a></body></html>',
}

async function publishedFolio(files: Record<string, string> = SITE, extra: object = {}): Promise<string> {
  const id = await s.api.create('Browser deck', files, { status: 'published', ...extra })
  const upload = await s.api.send(uploadFile, { params: { id }, raw: new Uint8Array(tinyPng([30, 90, 200])), headers: { 'x-file-path': 'img/logo.png' } })
  expect(upload.status).toBe(200)
  return id
}

async function openShare(id: string, page?: Page): Promise<Page> {
  const p = page ?? (await browser.newPage({ viewport: { width: 1280, height: 800 } }))
  p.on('pageerror', (error) => pageErrors.push(`${p.url()}: ${error.message}`))
  await p.goto(s.api.url(sharePage, { id }))
  return p
}

const frameOf = (page: Page) => page.frameLocator('iframe.frame')

describe('the share page in a real browser', () => {
  it('renders the folio with its CSS, its image and working links between pages', async () => {
    const id = await publishedFolio()
    const page = await openShare(id)
    const frame = frameOf(page)
    await expect.poll(() => frame.locator('#title').textContent()).toBe('Quarterly review')
    expect(await frame.locator('#title').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(0, 128, 0)')
    await expect.poll(() => frame.locator('#logo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(2)
    await page.screenshot({ path: join(ARTIFACTS, 'share-page.png'), fullPage: true })
    await frame.locator('#next').click()
    await expect.poll(() => frame.locator('#two').textContent()).toBe('Page two')
    await page.close()
  })

  it('counts a reaction click, and a view from the load beacon', async () => {
    const id = await publishedFolio()
    const page = await openShare(id)
    await eventually(async () => (await s.api.send(getFolio, { params: { id } })).body.analytics.views === 1, 'the view beacon')
    const analytics = (await s.api.send(getFolio, { params: { id } })).body.analytics
    expect(analytics.desktopViews).toBe(1)
    await page.getByRole('button', { name: /React with 👍/ }).click()
    await eventually(async () => (await s.api.send(getReactions, { params: { id } })).body.reactions['👍'] === 1, 'the reaction')
    await expect.poll(() => page.getByRole('button', { name: /React with 👍/ }).getAttribute('aria-label')).toContain('(1)')
    await page.close()
  })

  it('drops a pin where the viewer clicks, with x, y and the CSS selector of the element', async () => {
    const id = await publishedFolio()
    const page = await openShare(id)
    const frame = frameOf(page)
    await frame.locator('#title').waitFor()
    await bridgeReady(page)
    await page.getByRole('button', { name: 'Comment', exact: true }).click()
    await frame.locator('#title').click({ position: { x: 30, y: 10 } })
    await page.locator('#comment-text').fill('Make the title bigger')
    await page.locator('#comment-author').fill('Ann')
    await page.getByRole('button', { name: 'Post' }).click()
    const comments = await eventually(async () => {
      const list = (await s.api.send(listComments, { params: { id } })).body
      return list.length === 1 && list
    }, 'the comment')
    const c = comments[0]
    expect(c).toMatchObject({ text: 'Make the title bigger', author: 'Ann', versionId: 'v1', filename: 'index.html', resolved: false })
    expect(c.selector).toBe('#title') // the id of the element clicked
    expect(c.elementHtml).toContain('Quarterly review')
    expect(c.x).toBeGreaterThan(0)
    expect(c.x).toBeLessThan(20)
    expect(c.y).toBeGreaterThan(0)
    expect(c.y).toBeLessThan(30)
    // The pin is drawn inside the folio, where the viewer clicked.
    await expect.poll(() => frame.locator('[data-pin-count]').getAttribute('data-pin-count')).toBe('1')
    await page.screenshot({ path: join(ARTIFACTS, 'share-page-pin.png') })
    // A resolved comment's pin disappears.
    await s.api.send(resolveComment, { params: { id }, body: { commentId: c.id, resolved: true } })
    await expect.poll(() => frame.locator('[data-pin-count]').getAttribute('data-pin-count')).toBe('0')
    await page.close()
  })

  it('shows a new version without a reload', async () => {
    const id = await publishedFolio()
    const page = await openShare(id)
    const frame = frameOf(page)
    await expect.poll(() => frame.locator('#title').textContent()).toBe('Quarterly review')
    await page.evaluate(() => ((window as unknown as { stillSamePage: boolean }).stillSamePage = true))
    await s.api.send(updateFolio, {
      params: { id },
      body: { files: { ...SITE, 'index.html': SITE['index.html'].replace('Quarterly review', 'Annual review') } },
    })
    await expect.poll(() => frame.locator('#title').textContent(), { timeout: 10_000 }).toBe('Annual review')
    expect(await page.evaluate(() => (window as unknown as { stillSamePage?: boolean }).stillSamePage)).toBe(true)
    await page.close()
  })

  it('follows comments, reactions and metadata live, and says so when the folio is deleted', async () => {
    const id = await publishedFolio()
    const page = await openShare(id)
    await frameOf(page).locator('#title').waitFor()
    const count = page.locator('button.count-button')
    await expect.poll(() => count.getAttribute('aria-label')).toBe('0 comments: show list')
    await s.api.send(createComment, { params: { id }, body: { text: 'Looks good', author: 'Bo', versionId: 'v1', filename: 'index.html', x: 10, y: 10 } })
    await expect.poll(() => count.getAttribute('aria-label')).toBe('1 comment: show list')
    await count.click()
    const item = page.locator('#comments-panel .comment')
    await expect.poll(() => item.getAttribute('aria-label')).toMatch(/^Comment 1 by Bo, .*: Looks good$/)
    await item.click() // shows its pin in the folio; the panel stays open beside it
    expect(await page.locator('#comments-panel').isVisible()).toBe(true)
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('#comments-panel').isHidden()).toBe(true)
    await s.api.send(react, { params: { id }, body: { increments: { '💡': 2 } } })
    await expect.poll(() => page.getByRole('button', { name: /React with 💡/ }).getAttribute('aria-label')).toBe('React with 💡 (2)')
    await s.api.send(updateFolio, { params: { id }, body: { title: 'Renamed deck' } })
    await expect.poll(() => page.locator('h1.bar-title').textContent()).toBe('Renamed deck')
    expect(await page.title()).toBe('Renamed deck')
    await s.api.send(deleteFolio, { params: { id } })
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('This folio does not exist (any more)')
    await page.close()
  })

  it('catches up on what changed before its live stream opened', async () => {
    const id = await publishedFolio()
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    // The stream's request waits: what changes meanwhile is sent to no open stream of this page.
    let openStream!: () => void
    const streamMayOpen = new Promise<void>((resolve) => {
      openStream = resolve
    })
    await page.route(
      (url) => url.pathname === `/api/files/${id}/events`,
      async (route) => {
        await streamMayOpen
        await route.continue()
      },
    )
    await openShare(id, page)
    const frame = frameOf(page)
    await expect.poll(() => frame.locator('#title').textContent()).toBe('Quarterly review')
    const count = page.locator('button.count-button')
    expect(await count.getAttribute('aria-label')).toBe('0 comments: show list')
    await s.api.send(updateFolio, {
      params: { id },
      body: { title: 'Renamed deck', files: { ...SITE, 'index.html': SITE['index.html'].replace('Quarterly review', 'Annual review') } },
    })
    await s.api.send(createComment, { params: { id }, body: { text: 'Looks good', author: 'Bo', versionId: 'v2', filename: 'index.html', x: 10, y: 10 } })
    await s.api.send(react, { params: { id }, body: { increments: { '💡': 2 } } })
    openStream()
    await expect.poll(() => page.locator('h1.bar-title').textContent()).toBe('Renamed deck')
    await expect.poll(() => frame.locator('#title').textContent(), { timeout: 10_000 }).toBe('Annual review')
    await expect.poll(() => count.getAttribute('aria-label')).toBe('1 comment: show list')
    await expect.poll(() => frame.locator('[data-pin-count]').getAttribute('data-pin-count')).toBe('1')
    await expect.poll(() => page.getByRole('button', { name: /React with 💡/ }).getAttribute('aria-label')).toBe('React with 💡 (2)')
    await page.close()
  })

  it('leaves the comment form with Esc, then comment mode, and reports the time a viewer spent on leaving', async () => {
    const id = await publishedFolio()
    const page = await openShare(id)
    const frame = frameOf(page)
    await frame.locator('#title').waitFor()
    await eventually(async () => (await s.api.send(getFolio, { params: { id } })).body.analytics.views === 1, 'the view beacon')
    const toggle = page.getByRole('button', { name: 'Comment', exact: true })
    await bridgeReady(page)
    await toggle.click()
    await expect.poll(() => page.locator('body').getAttribute('class')).toContain('commenting')
    await frame.locator('#title').click({ position: { x: 30, y: 10 } })
    await expect.poll(() => page.locator('form.popover').isVisible()).toBe(true)
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('form.popover').isHidden()).toBe(true)
    // Focus went back to the folio: the bridge hands Esc over as mode-exit.
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('body').getAttribute('class')).not.toContain('commenting')
    expect(await page.getByRole('button', { name: 'Comment', exact: true }).getAttribute('aria-pressed')).toBe('false')
    await new Promise((r) => setTimeout(r, 1600))
    await page.goto('about:blank')
    await eventually(async () => (await s.api.send(getFolio, { params: { id } })).body.analytics.totalTimeSeconds >= 1, 'the leaving beacon')
    await page.close()
  })

  it('gates a private folio: a wrong key fails, the right key shows it', async () => {
    const id = await publishedFolio()
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'blue whale' } })
    const page = await openShare(id)
    await page.locator('#access-key').fill('red whale')
    await page.getByRole('button', { name: 'Unlock' }).click()
    await expect.poll(() => page.locator('#access-error').textContent()).toBe('That key is not right.')
    expect(await page.locator('iframe').count()).toBe(0)
    expect(page.url()).not.toContain('whale')
    await page.locator('#access-key').fill('blue whale')
    await page.getByRole('button', { name: 'Unlock' }).click()
    await expect.poll(() => frameOf(page).locator('#title').textContent(), { timeout: 10_000 }).toBe('Quarterly review')
    await expect
      .poll(() =>
        frameOf(page)
          .locator('#logo')
          .evaluate((img: HTMLImageElement) => img.naturalWidth),
      )
      .toBe(2)
    expect(page.url()).not.toContain('whale')
    const frameSrc = await page.locator('iframe').getAttribute('src')
    expect(frameSrc).not.toContain('whale')
    await page.close()
  })

  it('keeps drafts from viewers: not there for them until published; the owner sees its notice', async () => {
    const id = await s.api.create('Unfinished', SITE, { description: 'Secret plans' })
    // A viewer (through the tunnel: not this machine) meets the page of a folio that does not exist.
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    viewer.on('pageerror', (error) => pageErrors.push(`${viewer.url()}: ${error.message}`))
    await viewer.goto(`${s.ts.server.tunnelTarget}/share/${id}`)
    await expect.poll(() => viewer.locator('h1').first().textContent()).toBe('This folio does not exist (any more)')
    expect(await viewer.locator('iframe').count()).toBe(0)
    expect(await viewer.content()).not.toMatch(/Unfinished|Secret plans/)
    expect(await viewer.title()).toBe('Not found')
    // The owner, on this machine: the draft notice.
    const page = await openShare(id)
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('This folio is not published yet')
    expect(await page.locator('iframe').count()).toBe(0)
    await page.close()
    // Published, it appears on the viewer's open page.
    await s.api.send(updateFolio, { params: { id }, body: { status: 'published' } })
    await expect.poll(() => frameOf(viewer).locator('#title').textContent(), { timeout: 10_000 }).toBe('Quarterly review')
    await viewer.close()
  })

  it('opens a presentation-only folio behind a launch gate', async () => {
    const id = await publishedFolio(SITE, { presentationModeOnly: true })
    const page = await openShare(id)
    const start = page.getByRole('button', { name: /Start presentation/ })
    await start.waitFor()
    await start.click()
    await expect.poll(() => frameOf(page).locator('#title').textContent()).toBe('Quarterly review')
    await page.close()
  })
})

describe('the sandbox', () => {
  it('lets a folio’s script read neither the share page, its storage and cookies, nor the API with the owner’s rights', async () => {
    const probe = `<!doctype html><html><body><pre id="out">running</pre><script>
(async () => {
  const out = {}
  try { out.parentTitle = parent.document.title } catch (e) { out.parentTitle = 'blocked: ' + e.name }
  try { out.storage = JSON.stringify({ keys: Object.keys(localStorage), secret: localStorage.getItem('folio.secret') }) } catch (e) { out.storage = 'blocked: ' + e.name }
  try { out.cookie = document.cookie } catch (e) { out.cookie = 'blocked: ' + e.name }
  try { const r = await fetch('/api/files', { credentials: 'include' }); out.read = 'status ' + r.status + ' ' + (await r.text()).slice(0, 20) } catch (e) { out.read = 'blocked: ' + e.name }
  try { await fetch('/api/files', { method: 'POST', credentials: 'include', body: JSON.stringify({ title: 'pwned', initialHtml: 'x' }) }); out.write = 'sent' } catch (e) { out.write = 'blocked: ' + e.name }
  try { await fetch('/api/files/' + location.pathname.split('/')[2], { method: 'DELETE', credentials: 'include' }); out.delete = 'sent' } catch (e) { out.delete = 'blocked: ' + e.name }
  out.origin = self.origin
  document.getElementById('out').textContent = JSON.stringify(out)
})()
</script></body></html>`
    const id = await s.api.create('Probe', { 'index.html': probe }, { status: 'published' })
    const page = await browser.newPage()
    // The owner's own state on the share page's origin: what a folio must never reach.
    await page.goto(s.api.url(dashboardPage))
    await page.evaluate(() => localStorage.setItem('folio.secret', 'owner-only'))
    await page.goto(s.api.url(sharePage, { id }))
    const out = frameOf(page).locator('#out')
    await expect.poll(() => out.textContent(), { timeout: 10_000 }).toMatch(/^\{/)
    const result = JSON.parse((await out.textContent())!)
    expect(result.origin).toBe('null')
    expect(result.parentTitle).toMatch(/^blocked/)
    // The folio has storage of its own (decks need it), holding none of the server origin's.
    expect(JSON.parse(result.storage)).toEqual({ keys: [], secret: null })
    expect(result.cookie).toBe('')
    expect(result.read).toMatch(/^blocked/)
    // Whatever the browser let out, the server refused it: nothing was created or deleted.
    const folios = (await s.api.send(listFolios)).body
    expect(folios.some((f: { title: string }) => f.title === 'pwned')).toBe(false)
    expect(folios.some((f: { id: string }) => f.id === id)).toBe(true)
    await page.close()
  })
})

describe('the local dashboard', () => {
  it('lists the folios with their share links, views and reactions', async () => {
    const id = await publishedFolio()
    await s.api.send(updateFolio, { params: { id }, body: { title: 'Dashboard deck' } })
    await s.api.send(recordAnalytics, { params: { id }, body: { isInitial: true } })
    await s.api.send(recordAnalytics, { params: { id }, body: { isInitial: true, device: 'mobile' } })
    await s.api.send(react, { params: { id }, body: { reactions: { '🔥': 7 } } })
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    await page.goto(s.api.url(dashboardPage))
    const card = page.locator(`article.card[data-id="${id}"]`)
    await card.waitFor()
    expect(await card.textContent()).toContain('Dashboard deck')
    expect(await card.locator('.stat', { hasText: 'Views' }).locator('dd').textContent()).toBe('2')
    expect(await card.textContent()).toContain('7')
    expect(await card.getByRole('link', { name: 'Open share page' }).getAttribute('href')).toBe(`/share/${id}`)
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png') })
    await page.close()
  })
})
