import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { getKey } from '../src/api/keys.js'
import { getTunnel } from '../src/api/tunnel.js'
import { dashboardPage } from '../src/api/viewer.js'
import { ARTIFACTS, eventually, launchBrowser } from './helpers/browser.js'
import { viewerComment } from './helpers/inbox-seed.js'
import { type LoopbackTunnelServer, startLoopbackTunnelServer } from './helpers/localtunnel-server.js'
import { expectLogged, useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'

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
      expect(await page.locator('.empty pre').first().textContent()).toBe(
        `npx folio-cli create "My deck" --html deck.html --server ${new URL(s.api.url(dashboardPage)).origin}`,
      )
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
    await page
      .locator(`li.comment[data-comment-id="${note.id}"]`)
      .getByRole('button', { name: /^Resolve/ })
      .click()
    await eventually(async () => (await s.api.send(getFolio, { params: { id } })).body.comments[0].resolved === true, 'the resolve')
    // A reload in the same tab needs no second asking.
    await page.reload()
    await card.waitFor()
    expect(await gate.isHidden()).toBe(true)
    await context.close()
  })
})

describe('the tunnel panel', () => {
  // The loopback stand-in for a localtunnel server, and the page that tells its reminder page's
  // password (FOLIO_TUNNEL_PASSWORD_URL): what https://loca.lt/mytunnelpassword is to the public one.
  let relay: LoopbackTunnelServer
  let passwordPage: Server
  let passwordUrl: string
  beforeAll(async () => {
    relay = await startLoopbackTunnelServer()
    passwordPage = createServer((req, res) => (req.url === '/mytunnelpassword' ? res.end('203.0.113.7') : res.writeHead(404).end()))
    await new Promise<void>((resolve) => passwordPage.listen(0, '127.0.0.1', resolve))
    passwordUrl = `http://127.0.0.1:${(passwordPage.address() as AddressInfo).port}/mytunnelpassword`
  })
  // Registered before useServer's: after-hooks run last first, so the server closes before these.
  afterAll(async () => {
    await relay?.close()
    await new Promise((resolve) => passwordPage?.close(resolve))
  })
  const s = useServer(() => ({ config: { tunnel: { host: relay.url, passwordUrl, startTimeoutMs: 5_000 } } }))
  const changed = (from: string, to: string) =>
    `folio: [tunnel] The tunnel's public URL changed from ${from} to ${to}: links shared with the old one no longer work.`

  it('starts a localtunnel, shows its URL and password, copies share links through it, says when it moved, and stops (phone)', async () => {
    const title = 'Offsite deck'
    const id = await s.api.create(title, { 'index.html': '<h1>For the board</h1>' }, { status: 'published' })
    const { page, context } = await open(s.api.url(dashboardPage), VIEWPORTS.phone)
    const panel = page.getByRole('region', { name: 'Tunnel', exact: true })
    const state = panel.locator('.tunnel-state')
    const provider = panel.getByLabel('Provider')
    const copyLink = page.getByRole('button', { name: `Copy share link of ${title}` })
    await expect.poll(() => state.textContent(), { timeout: 5_000 }).toBe('Stopped')
    // The provider the server would start with (nothing chosen yet: localtunnel).
    expect(await provider.inputValue()).toBe('localtunnel')
    // Without a tunnel, the link is this machine's, and the toast says so.
    await copyLink.click()
    await expect.poll(() => clipboard(page)).toBe(new URL(`/share/${id}`, s.ts.url).href)
    await expect.poll(() => page.locator('#toast').textContent()).toMatch(/opens on this machine only: start the tunnel/)

    // A refused request shows the server's own words, inline.
    await provider.selectOption('custom')
    await panel.getByLabel('Your public URL').fill('ftp://files.example.com')
    await panel.getByRole('button', { name: 'Start tunnel' }).click()
    await expect.poll(() => panel.getByRole('alert').textContent()).toBe('customTunnelUrl must be an http(s) URL, or empty to clear it.')

    await provider.selectOption('localtunnel')
    expect(await panel.getByLabel('Your public URL').isHidden()).toBe(true)
    await panel.getByRole('button', { name: 'Start tunnel' }).click()
    await expect.poll(() => state.textContent(), { timeout: 10_000 }).toBe('Connected through localtunnel')
    const url = (await s.api.send(getTunnel)).body.url as string
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(await panel.getByRole('link', { name: url }).getAttribute('href')).toBe(url)
    expect(await panel.locator('.tunnel-password').textContent()).toBe('Tunnel password: 203.0.113.7')
    expect(await panel.locator('.tunnel-password + p').textContent()).toContain('tell them the tunnel password is 203.0.113.7')
    expect(await panel.getByRole('alert').isHidden()).toBe(true)
    expect(await provider.isDisabled()).toBe(true)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-tunnel-phone.png'), fullPage: true })

    // A folio's link goes through the tunnel, with the password its browser viewers are asked for.
    await copyLink.click()
    await expect.poll(() => clipboard(page)).toBe(`${url}/share/${id}\nTunnel password: 203.0.113.7 (localtunnel's reminder page asks viewers for it once)`)
    expect((await fetch(`${url}/share/${id}`)).status).toBe(200)
    await panel.getByRole('button', { name: 'Copy the public URL' }).click()
    await expect.poll(() => clipboard(page)).toBe(url)

    await panel.getByRole('button', { name: 'Stop tunnel' }).click()
    await expect.poll(() => state.textContent(), { timeout: 5_000 }).toBe('Stopped')
    expect((await s.api.send(getTunnel)).body.state).toBe('stopped')
    expect(await panel.locator('.tunnel-address').isHidden()).toBe(true)
    expect(await panel.locator('.tunnel-password').isHidden()).toBe(true)

    // Another start is another address: the panel says the links shared before are dead.
    await panel.getByRole('button', { name: 'Start tunnel' }).click()
    await expect.poll(() => state.textContent(), { timeout: 10_000 }).toBe('Connected through localtunnel')
    const moved = (await s.api.send(getTunnel)).body.url as string
    expect(moved).not.toBe(url)
    expect(await panel.locator('.tunnel-moved').textContent()).toBe(`The tunnel has a new address: links shared with ${url} no longer work. Copy them again.`)
    await copyLink.click()
    await expect.poll(() => clipboard(page)).toBe(`${moved}/share/${id}\nTunnel password: 203.0.113.7 (localtunnel's reminder page asks viewers for it once)`)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await panel.getByRole('button', { name: 'Stop tunnel' }).click()
    await expect.poll(() => state.textContent(), { timeout: 5_000 }).toBe('Stopped')

    // The owner's own URL: saved, then "started"; links use it, with no password.
    await provider.selectOption('custom')
    await panel.getByLabel('Your public URL').fill('https://decks.example.com')
    await panel.getByRole('button', { name: 'Start tunnel' }).click()
    await expect.poll(() => state.textContent(), { timeout: 10_000 }).toBe('Connected through your own URL')
    expect((await s.api.send(getTunnel)).body).toMatchObject({
      customTunnelUrl: 'https://decks.example.com',
      provider: 'custom',
      url: 'https://decks.example.com',
    })
    await copyLink.click()
    await expect.poll(() => clipboard(page)).toBe(`https://decks.example.com/share/${id}`)
    await panel.getByRole('button', { name: 'Stop tunnel' }).click()
    await expect.poll(() => state.textContent(), { timeout: 5_000 }).toBe('Stopped')
    // The remembered provider: the next start's, as the server says.
    await page.reload()
    await expect.poll(() => provider.inputValue()).toBe('custom')
    expect(await panel.getByLabel('Your public URL').inputValue()).toBe('https://decks.example.com')
    expectLogged(s.ts, [changed(url, moved), changed(moved, 'https://decks.example.com')])
    await context.close()
  })
})

describe('the Cloud dashboard', () => {
  const cloud = useCloudServer()

  it('has no tunnel panel: the API refuses it there', async () => {
    const { page, context } = await open(`${cloud.ts.url}/`, VIEWPORTS.desktop)
    await page.locator('#key-input').fill(cloud.workspace.apiKey)
    const refused = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/tunnel')
    await page.getByRole('button', { name: 'Show my folios' }).click()
    expect((await refused).status()).toBe(403)
    await expect.poll(() => page.locator('.empty h2').textContent()).toBe('No folios yet')
    expect(await page.locator('#tunnel').isHidden()).toBe(true)
    await context.close()
  })
})
