import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, getReactions, listComments, resolveComment } from '../src/api/engagement.js'
import { getBrief, getFolio } from '../src/api/files.js'
import { sharePage } from '../src/api/viewer.js'
import type { Comment } from '../src/domain/model.js'
import { eventually, launchBrowser } from './helpers/browser.js'
import { dashboardPage } from './helpers/folio-fixtures.js'
import {
  closePage,
  commentOn,
  DESKTOP,
  expectPinOn,
  folioFrame,
  FULL_LIST,
  type HeldList,
  holdFullList,
  openPage,
  PHONE,
  pressInFolio,
  shot,
} from './helpers/share-page.js'
import { useServer } from './helpers/use-server.js'

/**
 * Issue 9: threads under their pin, who may resolve and delete on the page (the owner, a
 * comment's author remembered in their browser), reactions one per viewer, and the polish.
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

const SEP = 'circle[data-month="Sep"]'
const DEC = 'circle[data-month="Dec"]'
const comments = async (id: string): Promise<Comment[]> => (await s.api.send(listComments, { params: { id } })).body
const thread = (page: Page, id: string) => page.locator(`#comments-panel .thread[data-thread="${id}"]`)
const tooltip = (page: Page) => folioFrame(page).then((f) => f.locator('folio-pins .tip'))

/** A comment on a chart point, as a page at 1440×900 would have pinned it, made by someone else. */
async function pinnedByOther(id: string, month: 'Sep' | 'Dec', text: string): Promise<Comment> {
  const quote = { Sep: 'Sep: 74k', Dec: 'Dec: 86k' }[month]
  const reply = await s.api.send(createComment, {
    params: { id },
    body: {
      text,
      author: 'Bo',
      versionId: 'v1',
      filename: 'index.html',
      x: 50,
      y: 60,
      selector: `circle[data-month="${month}"]`,
      anchor: { selector: `circle[data-month="${month}"]`, quote, offsetX: 50, offsetY: 50, viewport: DESKTOP },
    },
  })
  expect(reply.status).toBe(200)
  return reply.body.comment
}

describe('threads', () => {
  it('show a reply under its pin; the author resolves the thread, replies and all', async () => {
    const id = await s.api.create('Sales dashboard', { 'index.html': dashboardPage() }, { status: 'published' })
    const url = s.api.url(sharePage, { id })
    const author = await openPage(browser, url, DESKTOP, pageErrors)
    await (await folioFrame(author)).locator(SEP).waitFor()
    await commentOn(author, SEP, 'September spike: the campaign?')
    const [parent] = await eventually(async () => {
      const l = await comments(id)
      return l.length === 1 && l
    }, 'the comment')

    // Another viewer answers from the panel: no resolve or delete for them on someone else's comment.
    const other = await openPage(browser, url, PHONE, pageErrors)
    await other.locator('button.count-button').click()
    const theirs = thread(other, parent!.id)
    await expect.poll(() => theirs.locator('.thread-actions button').allTextContents()).toEqual(['Reply'])
    await theirs.getByRole('button', { name: 'Reply' }).click()
    await other.locator('.reply-form textarea').fill('Yes: the newsletter went out on the 3rd')
    await other.locator('.reply-form').getByRole('button', { name: 'Reply' }).click()
    const reply = await eventually(async () => (await comments(id)).find((c) => c.parentId === parent!.id), 'the reply')
    expect(reply).toMatchObject({ text: 'Yes: the newsletter went out on the 3rd', filename: 'index.html' })
    expect(reply.anchor).toBeUndefined()
    await expect.poll(() => theirs.locator('.replies .reply .text').allTextContents()).toEqual(['Yes: the newsletter went out on the 3rd'])
    // Their own reply they may delete; it counts as an open comment.
    await expect.poll(() => theirs.locator('.replies .thread-actions button').allTextContents()).toEqual(['Delete'])
    await expect.poll(() => other.locator('button.count-button').getAttribute('aria-label')).toBe('2 comments: show list')
    expect((await s.api.send(getBrief, { params: { id } })).body.openComments).toHaveLength(2) // the brief counts alike

    // The author's page: the reply under the comment in the list, and in the pin's tooltip.
    await author.locator('button.count-button').click()
    await expect.poll(() => thread(author, parent!.id).locator('.replies .reply .text').allTextContents()).toEqual(['Yes: the newsletter went out on the 3rd'])
    const pin = (await folioFrame(author)).locator(`folio-pins .pin[data-comment-id="${parent!.id}"]`)
    await expect.poll(() => pin.getAttribute('aria-label')).toMatch(/\(1 reply\)$/)
    await pin.hover()
    await expect.poll(async () => (await tooltip(author)).textContent()).toContain('Yes: the newsletter went out on the 3rd')
    await shot(author, 'thread-reply')

    // The author resolves the thread from the page: the reply goes with it.
    await expect.poll(() => thread(author, parent!.id).locator(':scope > .thread-actions button').allTextContents()).toEqual(['Reply', 'Resolve', 'Delete'])
    await thread(author, parent!.id).getByRole('button', { name: 'Resolve' }).click()
    await eventually(async () => (await comments(id)).every((c) => c.resolved), 'the thread resolved')
    await expect.poll(() => author.locator('#comments-panel .empty').first().textContent()).toBe('All comments resolved.')
    await expect.poll(() => other.locator('#comments-panel .empty').first().textContent()).toBe('All comments resolved.')
    await expect.poll(async () => (await folioFrame(author)).evaluate(() => document.querySelector('folio-pins')?.getAttribute('data-pin-count'))).toBe('0')
    // The resolved thread is still there behind the toggle, and its author may reopen it.
    await author.locator('#show-history').check()
    await expect.poll(() => thread(author, parent!.id).locator('.tag.done').count()).toBe(1)
    await expect.poll(() => thread(author, parent!.id).locator('.replies .reply').count()).toBe(1)
    await shot(author, 'thread-resolved-history')
    await thread(author, parent!.id).getByRole('button', { name: 'Reopen' }).click()
    await eventually(async () => (await comments(id)).every((c) => !c.resolved), 'the thread reopened')
    await expectPinOn(author, parent!.id, SEP)
    await closePage(author)
    await closePage(other)
  })
})

describe('moderation and reactions on the page', () => {
  it('lets the owner’s preview resolve and delete anyone’s comment, and counts none of its reactions or views', async () => {
    const id = await s.api.create('Sales dashboard', { 'index.html': dashboardPage() }, { status: 'published' })
    const bos = await pinnedByOther(id, 'Sep', 'Explain the spike')
    const preview = await openPage(browser, `${s.api.url(sharePage, { id })}?preview`, DESKTOP, pageErrors)
    await preview.locator('button.count-button').click()
    const item = thread(preview, bos.id)
    await expect.poll(() => item.locator(':scope > .thread-actions button').allTextContents()).toEqual(['Reply', 'Resolve', 'Delete'])
    await item.getByRole('button', { name: 'Delete' }).click()
    await item.getByRole('button', { name: 'Really delete?' }).click()
    await eventually(async () => (await comments(id)).length === 0, 'the comment deleted')
    await expect.poll(() => preview.locator('#comments-panel .empty').first().textContent()).toMatch(/^No comments yet/)

    await preview.getByRole('button', { name: /React with 👍/ }).click()
    await expect.poll(() => preview.locator('.toast').last().textContent()).toBe('A preview does not count reactions')
    await new Promise((r) => setTimeout(r, 500))
    expect((await s.api.send(getReactions, { params: { id } })).body.reactions['👍'] ?? 0).toBe(0)
    expect((await s.api.send(getFolio, { params: { id } })).body.analytics.views).toBe(0)
    await closePage(preview)
  })

  it('shows what it did at once, and an answer the server gave before that does not undo it', async () => {
    const id = await s.api.create('Sales dashboard', { 'index.html': dashboardPage() }, { status: 'published' })
    const bos = await pinnedByOther(id, 'Sep', 'Explain the spike')
    let list!: HeldList
    const preview = await openPage(browser, `${s.api.url(sharePage, { id })}?preview`, DESKTOP, pageErrors, async (p) => {
      list = await holdFullList(p)
    })
    const empty = () => preview.locator('#comments-panel .empty').first().textContent()
    await expectPinOn(preview, bos.id, SEP)
    await expect.poll(() => list.served()).toBe(1) // the first full list (Bo's comment open) is on its way
    await preview.locator('button.count-button').click()
    await preview.locator('#show-history').check()

    // Resolved: said at once, and the thread is behind the toggle, without the full list.
    await thread(preview, bos.id).getByRole('button', { name: 'Resolve' }).click()
    await expect.poll(empty).toBe('All comments resolved.')
    await expect.poll(() => thread(preview, bos.id).locator('.tag.done').count()).toBe(1)
    // The list the server gave before the resolve comes late: the page asks again only once it took it in.
    await list.release()
    await expect.poll(() => list.served(), FULL_LIST).toBe(2)
    expect(await empty()).toBe('All comments resolved.')
    expect(await thread(preview, bos.id).locator('.tag.done').count()).toBe(1)

    // Deleted for good (the owner): no comments at all, even after a list that still had it.
    await thread(preview, bos.id).getByRole('button', { name: 'Delete' }).click()
    await thread(preview, bos.id).getByRole('button', { name: 'Really delete?' }).click()
    await expect.poll(empty).toMatch(/^No comments yet/)
    await list.release()
    await expect.poll(() => list.served(), FULL_LIST).toBe(3)
    expect(await empty()).toMatch(/^No comments yet/)
    expect(await thread(preview, bos.id).count()).toBe(0)
    expect((await comments(id)).length).toBe(0)
    await closePage(preview)
  })

  it('takes one reaction per emoji per viewer: a second click takes it back', async () => {
    const id = await s.api.create('Sales dashboard', { 'index.html': dashboardPage() }, { status: 'published' })
    const page = await openPage(browser, s.api.url(sharePage, { id }), DESKTOP, pageErrors)
    const like = page.getByRole('button', { name: /React with 👍/ })
    const count = async () => (await s.api.send(getReactions, { params: { id } })).body.reactions['👍'] ?? 0
    await like.click()
    await eventually(async () => (await count()) === 1, 'the reaction')
    await expect.poll(() => like.getAttribute('aria-pressed')).toBe('true')
    // Remembered in this browser: after a reload the button still says it is this viewer's.
    await page.reload()
    await expect.poll(() => like.getAttribute('aria-pressed')).toBe('true')
    await new Promise((r) => setTimeout(r, 700)) // a click right after another is ignored
    await like.click()
    await eventually(async () => (await count()) === 0, 'the reaction taken back')
    await expect.poll(() => like.getAttribute('aria-label')).toBe('React with 👍 (0)')
    expect(await like.getAttribute('aria-pressed')).toBe('false')
    await closePage(page)
  })
})

describe('polish', () => {
  it('keeps a pin’s tooltip inside a phone’s frame, and Esc in the folio closes the panel', async () => {
    const id = await s.api.create('Sales dashboard', { 'index.html': dashboardPage() }, { status: 'published' })
    const dec = await pinnedByOther(id, 'Dec', 'December: is this the Black Friday effect, or the new pricing that started in November?')
    const page = await openPage(browser, s.api.url(sharePage, { id }), PHONE, pageErrors)
    await expectPinOn(page, dec.id, DEC)
    await (await folioFrame(page)).locator(`folio-pins .pin[data-comment-id="${dec.id}"]`).hover()
    const tip = await tooltip(page)
    await expect.poll(() => tip.isVisible()).toBe(true)
    const box = (await tip.boundingBox())!
    const frameWidth = await (await folioFrame(page)).evaluate(() => document.documentElement.clientWidth)
    expect(box.x).toBeGreaterThanOrEqual(0)
    expect(box.x + box.width).toBeLessThanOrEqual(frameWidth)
    await shot(page, 'tooltip-phone')

    await page.locator('button.count-button').click()
    await expect.poll(() => page.locator('#comments-panel').isVisible()).toBe(true)
    await pressInFolio(page, 'Escape')
    await expect.poll(() => page.locator('#comments-panel').isHidden()).toBe(true)
    await closePage(page)
  })
})

describe('a link to one comment', () => {
  it('opens the panel at it: a reply at its thread, a resolved one with earlier versions shown', async () => {
    const id = await s.api.create('Linked dashboard', { 'index.html': dashboardPage() }, { status: 'published' })
    const open = await pinnedByOther(id, 'Sep', 'September spike')
    const done = await pinnedByOther(id, 'Dec', 'December is fine')
    const answer = await s.api.send(createComment, { params: { id }, body: { text: 'Agreed', versionId: 'v1', filename: 'index.html', parentId: open.id } })
    expect(answer.status).toBe(200)
    expect((await s.api.send(resolveComment, { params: { id }, body: { commentId: done.id, resolved: true } })).status).toBe(200)

    for (const [linked, shown] of [
      [answer.body.comment.id, open.id],
      [done.id, done.id],
    ] as const) {
      let list!: HeldList
      const page = await openPage(
        browser,
        `${s.api.url(sharePage, { id })}?preview=1#comment=${encodeURIComponent(linked)}`,
        DESKTOP,
        pageErrors,
        async (p) => {
          list = await holdFullList(p)
          // The flash is brief (share.css .comment.flash): record it from the page's start, as it
          // happens, so a busy machine's slow poll cannot miss it.
          await p.addInitScript(() => {
            const flashed: string[] = []
            ;(window as unknown as { flashed: string[] }).flashed = flashed
            // A flash is added to an item on screen, or carried onto the item of a list drawn anew
            // before it is inserted: both are seen.
            const seen = (el: Element) => {
              for (const item of [el, ...el.querySelectorAll('.flash')]) {
                const id = (item as HTMLElement).dataset?.id
                if (item.classList.contains('flash') && id) flashed.push(id)
              }
            }
            new MutationObserver((changes) => {
              for (const change of changes) {
                if (change.type === 'attributes') seen(change.target as Element)
                for (const node of change.addedNodes) if (node instanceof Element) seen(node)
              }
            }).observe(document, { subtree: true, attributes: true, attributeFilter: ['class'], childList: true })
          })
        },
      )
      // The folio is on screen (the link is being followed) before the full list, which alone
      // holds the resolved comment, reaches the page.
      await expectPinOn(page, open.id, SEP)
      await list.release()
      await expect.poll(() => page.locator('#comments-panel').isVisible()).toBe(true)
      // The thread's comment is brought into view and flashed.
      await expect.poll(() => page.evaluate(() => (window as unknown as { flashed: string[] }).flashed)).toEqual(expect.arrayContaining([shown]))
      if (linked === done.id) expect(await page.locator('#show-history').isChecked()).toBe(true)
      // The owner's view of a published folio: a preview, not a draft.
      expect(await page.locator('.badge').textContent()).toBe('Preview')
      await shot(page, `linked-comment-${linked === done.id ? 'resolved' : 'reply'}`)
      await closePage(page)
    }
  })
})
