import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { getKey } from '../src/api/keys.js'
import { dashboardPage } from '../src/api/viewer.js'
import { ARTIFACTS, eventually, launchBrowser } from './helpers/browser.js'
import { viewerComment } from './helpers/inbox-seed.js'
import { useServer } from './helpers/use-server.js'

// Issue 9: the owner runs their folios from the dashboard (publish, private with a key, comments,
// versions, the brief, delete), on a desktop and on a phone; from another machine it asks for the key.
let browser: Browser
const pageErrors: string[] = []

beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  expect(pageErrors).toEqual([])
})

const VIEWPORTS = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const

async function open(url: string, viewport: { width: number; height: number }): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, permissions: ['clipboard-read', 'clipboard-write'] })
  const page = await context.newPage()
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
  await page.goto(url)
  return { page, context }
}

/** How far the page reaches past the screen's right edge (0 or less: no sideways scrolling). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText())

describe('the empty dashboard', () => {
  const s = useServer()
  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    it(`fits the screen without sideways scrolling (${name} ${viewport.width}×${viewport.height})`, async () => {
      const { page, context } = await open(s.api.url(dashboardPage), viewport)
      await expect.poll(() => page.locator('.empty h2').textContent()).toBe('No folios yet')
      // The CLI's command as the registry knows it (folio there is someone else's), on this server.
      expect(await page.locator('.empty pre').first().textContent()).toBe(`npx folio-cli create "My deck" --html deck.html --server ${new URL(s.api.url(dashboardPage)).origin}`)
      // The curl command is the widest thing on the page: it wraps instead of widening it.
      expect(await page.locator('.empty pre').last().textContent()).toContain('curl -s')
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      expect(await page.locator('#inbox').isHidden()).toBe(true)
      await page.screenshot({ path: join(ARTIFACTS, `dashboard-empty-${name}.png`), fullPage: true })
      await context.close()
    })
  }
})

describe("the owner's actions on a folio", () => {
  const s = useServer()

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    it(`publishes, unpublishes, makes private with a copied key, turns comments off, restores a version and deletes (${name})`, async () => {
      const title = `Board pack ${name}`
      const id = await s.api.create(title, { 'index.html': '<h1>First draft</h1>' })
      await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>Second draft</h1>' }, commitMessage: 'Sharper' } })
      const folio = async () => (await s.api.send(getFolio, { params: { id }, query: { files: 'latest' } })).body
      const { page, context } = await open(s.api.url(dashboardPage), viewport)
      const card = page.locator(`article.card[data-id="${id}"]`)
      await card.waitFor()
      await card.getByText('Manage').click()
      const toast = page.locator('#toast')

      await card.getByRole('button', { name: 'Publish' }).click()
      await eventually(async () => (await folio()).status === 'published', 'the publish')
      await expect.poll(() => card.locator('.status').textContent()).toBe('Published')
      await expect.poll(() => toast.textContent()).toBe(`“${title}” is published.`)
      await card.getByRole('button', { name: 'Unpublish' }).click()
      await eventually(async () => (await folio()).status === 'draft', 'the unpublish')
      await expect.poll(() => card.locator('.status').textContent()).toBe('Draft')

      // Private: the page makes a key, the owner may change it, and it lands on the clipboard.
      await card.getByRole('button', { name: 'Make private' }).click()
      const dialog = page.getByRole('dialog', { name: `Make “${title}” private` })
      const keyField = dialog.getByRole('textbox')
      // Made for the owner: 20 of 62 characters, 119 bits, never to be guessed.
      expect(await keyField.inputValue()).toMatch(/^[A-Za-z0-9]{20}$/)
      expect(await dialog.locator('.field-warning').textContent()).toBe('')
      // A short key typed by hand is allowed, with a word on what it risks.
      await keyField.fill('blue')
      await expect.poll(() => dialog.locator('.field-warning').textContent()).toMatch(/^This key is short: anyone can try a few keys a minute/)
      await page.screenshot({ path: join(ARTIFACTS, `dashboard-make-private-${name}.png`) })
      await keyField.fill('correct horse battery')
      await dialog.getByRole('button', { name: 'Make private and copy key' }).click()
      await eventually(async () => (await folio()).isPrivate === true, 'the private switch')
      expect((await folio()).accessKey).toBe('correct horse battery')
      await expect.poll(() => clipboard(page)).toBe('correct horse battery')
      await expect.poll(() => card.locator('.lock').count()).toBe(1)
      await page.evaluate(() => navigator.clipboard.writeText(''))
      await card.getByRole('button', { name: 'Copy key' }).click()
      await expect.poll(() => clipboard(page)).toBe('correct horse battery')
      await card.getByRole('button', { name: 'Make public' }).click()
      await eventually(async () => (await folio()).isPrivate === false, 'the public switch')

      await card.getByRole('button', { name: 'Turn comments off' }).click()
      await eventually(async () => (await folio()).allowComments === false, 'comments off')
      await expect.poll(() => card.locator('.meta .off').textContent()).toBe('Comments off')
      await card.getByRole('button', { name: 'Turn comments on' }).click()
      await eventually(async () => (await folio()).allowComments === true, 'comments on')

      // Versions, newest first; restoring v1 makes it v3 (history stays).
      await card.getByText('Versions (2)').click()
      await card.getByRole('button', { name: 'Restore v1' }).click()
      await eventually(async () => (await folio()).latestVersionId === 'v3', 'the restore')
      expect((await folio()).versions.at(-1).files['index.html']).toBe('<h1>First draft</h1>')
      await expect.poll(() => toast.textContent()).toBe('Restored v1 as v3.')
      // The versions list stayed open through the refresh and shows the new one.
      await expect.poll(() => card.locator('.version-list li').first().getAttribute('data-version')).toBe('v3')

      // The brief: one click.
      await card.getByRole('button', { name: `Brief of ${title}` }).click()
      const brief = page.getByRole('dialog', { name: `Brief for “${title}”` })
      await expect.poll(() => brief.locator('pre').textContent()).toContain(title)
      await brief.getByRole('button', { name: 'Close' }).click()

      // Delete: only once the title is typed.
      await card.getByRole('button', { name: `Delete ${title}` }).click()
      const confirm = page.getByRole('dialog', { name: `Delete “${title}”?` })
      const button = confirm.getByRole('button', { name: 'Delete for good' })
      expect(await button.isDisabled()).toBe(true)
      await confirm.getByRole('textbox').fill('Board pack')
      expect(await button.isDisabled()).toBe(true)
      await confirm.getByRole('textbox').fill(title)
      await page.screenshot({ path: join(ARTIFACTS, `dashboard-delete-${name}.png`) })
      await button.click()
      await eventually(async () => (await s.api.send(getFolio, { params: { id } })).status === 404, 'the delete')
      await expect.poll(() => card.count()).toBe(0)
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      await context.close()
    })
  }
})

describe('from another machine', () => {
  const s = useServer()

  it('asks for the API key, keeps it for the tab, and acts with it', async () => {
    const id = await s.api.create('Remote deck', { 'index.html': '<h1>Remote</h1>' }, { status: 'published' })
    const note = await viewerComment(s.ts, id, { text: 'Seen from afar', author: 'Eve', versionId: 'v1' })
    const { apiKey } = (await s.api.send(getKey)).body
    // The tunnel's listener: what a viewer on the internet (or the owner away from home) reaches.
    const { page, context } = await open(`${s.ts.server.tunnelTarget}/`, VIEWPORTS.phone)
    const gate = page.locator('#key-gate')
    await expect.poll(() => gate.isVisible()).toBe(true)
    expect(await page.locator('#key-why').textContent()).toMatch(/not on the machine that runs folio/)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-key-gate.png') })
    await page.locator('#key-input').fill('svc_live_wrong')
    await page.getByRole('button', { name: 'Show my folios' }).click()
    await expect.poll(() => page.locator('#key-why').textContent()).toMatch(/refused that key/)
    await page.locator('#key-input').fill(apiKey)
    await page.getByRole('button', { name: 'Show my folios' }).click()
    const card = page.locator(`article.card[data-id="${id}"]`)
    await card.waitFor()
    expect(await gate.isHidden()).toBe(true)
    // The owner's actions carry the key too.
    await page.locator(`li.comment[data-comment-id="${note.id}"]`).getByRole('button', { name: /^Resolve/ }).click()
    await eventually(async () => (await s.api.send(getFolio, { params: { id } })).body.comments[0].resolved === true, 'the resolve')
    // A reload in the same tab needs no second asking.
    await page.reload()
    await card.waitFor()
    expect(await gate.isHidden()).toBe(true)
    await context.close()
  })
})
