import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { launchBrowser } from './helpers/browser.js'
import { codeMailedTo } from './helpers/agents.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'
import { closeClean } from './helpers/use-server.js'
import { createWorkspace, type TestWorkspace } from './helpers/workspaces.js'

// Cloud: people sign in to the dashboard with an e-mailed code or the pasted key, into an
// HttpOnly session cookie; the dashboard then works as the owner's.
let browser: Browser
let smtp: TestSmtpServer
let ts: TestServer
let ws: TestWorkspace
let id: string
const pageErrors: string[] = []

beforeAll(async () => {
  browser = await launchBrowser()
  smtp = await startSmtpServer()
  ts = await startTestServer({ mode: 'cloud', config: { smtpUrl: smtp.url } })
  ws = await createWorkspace(ts, { name: 'Studio', email: 'owner@example.com' })
  id = await ws.api.create('Launch plan', { 'index.html': '<h1>Plan</h1>' })
})
afterAll(async () => {
  await browser?.close()
  await closeClean(ts)
  await smtp.close()
  expect(pageErrors).toEqual([])
})

async function openDashboard(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
  await page.goto(`${ts.url}/`)
  await expect.poll(() => page.locator('#email-gate').isVisible()).toBe(true)
  expect(await page.locator('#key-why').textContent()).toMatch(/Sign in to see your workspace/)
  return page
}

describe('signing in to the Cloud dashboard', () => {
  it('by a code e-mailed to the address: the session lives in a cookie no script reads, and acts as the owner', async () => {
    const page = await openDashboard()
    await page.locator('#email-input').fill('owner@example.com')
    await page.locator('#email-gate').getByRole('button', { name: 'Continue' }).click()
    await page.locator('#code-input').waitFor()
    await page.locator('#code-input').fill(await codeMailedTo(smtp, 'owner@example.com'))
    await page.locator('#email-gate').getByRole('button', { name: 'Continue' }).click()
    const card = page.locator(`article.card[data-id="${id}"]`)
    await card.waitFor()
    expect(await page.locator('#key-gate').isHidden()).toBe(true)
    expect(await page.evaluate(() => document.cookie)).not.toContain('folio_session')
    const cookies = await page.context().cookies()
    expect(cookies.find((c) => c.name === 'folio_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' })
    // An owner's action goes through with the session.
    await card.getByText('Manage').click()
    await card.getByRole('button', { name: 'Publish' }).click()
    await expect.poll(async () => (await ws.api.send(getFolio, { params: { id } })).body.status).toBe('published')
    await page.reload()
    await card.waitFor()
    await page.context().close()
  })

  it('by pasting the workspace key, which the tab does not keep', async () => {
    const page = await openDashboard()
    await page.locator('#key-input').fill(`folio_live_${'0'.repeat(48)}`)
    await page.getByRole('button', { name: 'Show my folios' }).click()
    await expect.poll(() => page.locator('#key-why').textContent()).toMatch(/refused that key/)
    await page.locator('#key-input').fill(ws.apiKey)
    await page.getByRole('button', { name: 'Show my folios' }).click()
    await page.locator(`article.card[data-id="${id}"]`).waitFor()
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain(ws.apiKey)
    await page.context().close()
  })
})
