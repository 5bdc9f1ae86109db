import { describe, expect, it } from 'vitest'
import { createComment, recordAnalytics } from '../src/api/engagement.js'
import { getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { createLink, listLinks, revokeLink } from '../src/api/links.js'
import { sharePage } from '../src/api/viewer.js'
import { testApi } from './helpers/api.js'
import { openEvents } from './helpers/events.js'
import { useServer } from './helpers/use-server.js'

/*
 * Issue 28: analytics an author acts on, through the public beacon and the share page, as a
 * browser and a link-preview bot reach them (the browser side is browser-analytics.test.ts).
 */
const s = useServer()

const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36'
const beacon = (id: string, body: object, headers: Record<string, string> = {}) =>
  s.api.send(recordAnalytics, { params: { id }, body, headers: { 'user-agent': DESKTOP, ...headers } })
const analytics = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.analytics
const published = () => s.api.create('Deck', { 'index.html': '<h1>Deck</h1>' }, { status: 'published' })

/** One view of a four-slide deck as the share page reports it: 3 s on slide 1, 6 s on slide 3, then it leaves. */
async function viewDeck(id: string, extra: object = {}) {
  await beacon(id, { isInitial: true, device: 'desktop', version: 1, ...extra })
  await beacon(id, { kind: 'slides', total: 4, parts: [{ n: 1, s: 3, t: 'Welcome', v: true }], furthest: 1, version: 1, ...extra })
  await beacon(id, {
    sessionSeconds: 9,
    kind: 'slides',
    total: 4,
    parts: [
      { n: 2, s: 0.4, t: 'Agenda', v: true },
      { n: 3, s: 6, t: 'Pricing', v: true },
    ],
    furthest: 3,
    previousFurthest: 1,
    version: 1,
    end: { seen: 3, total: 4, seconds: 9, longest: 3 },
    ...extra,
  })
}

describe('where the time went', () => {
  it('counts time per slide, where each view stopped, returning viewers and completion', async () => {
    const id = await published()
    await viewDeck(id)
    await viewDeck(id, { returning: true })
    // A third view reads to the end.
    await beacon(id, { isInitial: true, returning: true })
    await beacon(id, { kind: 'slides', total: 4, parts: [{ n: 4, s: 2, v: true }], furthest: 4, completed: true })

    const a = await analytics(id)
    expect(a.views).toBe(3)
    expect(a.returningViews).toBe(2)
    expect(a.newViews).toBe(1)
    expect(a.completedViews).toBe(1)
    expect(a.completionRate).toBeCloseTo(1 / 3, 2)
    expect(a.slides).toEqual([
      { slide: 1, title: 'Welcome', views: 2, totalTimeSeconds: 6 },
      { slide: 2, title: 'Agenda', views: 2, totalTimeSeconds: 1 },
      { slide: 3, title: 'Pricing', views: 2, totalTimeSeconds: 12 },
      { slide: 4, views: 1, totalTimeSeconds: 2 },
    ])
    expect(a.dropOff).toEqual([
      { slide: 3, views: 2 },
      { slide: 4, views: 1 },
    ])
    expect(a.viewsByDay).toEqual([{ date: new Date().toISOString().slice(0, 10), views: 3 }])
    expect(a.versions).toEqual([expect.objectContaining({ versionId: 'v1', views: 2, totalTimeSeconds: 18 })])
    // The end of a view, as a sentence for the author.
    expect(a.recentViews.filter((v: { type: string }) => v.type === 'ended').map((v: { text: string }) => v.text)).toEqual([
      'A viewer read 3 of 4 slides in 9 s, longest on slide 3',
      'A viewer read 3 of 4 slides in 9 s, longest on slide 3',
    ])
    // The list carries the short form: the spec's figures, the counts, the top slides.
    const item = (await s.api.send(listFolios)).body.find((f: { id: string }) => f.id === id)
    expect(item.analytics.topParts.map((p: { slide: number }) => p.slide)).toEqual([3, 1, 4])
    expect(item.analytics.slides).toBeUndefined()
    expect(item.analytics.lastView).toMatchObject({ type: 'started', text: 'A viewer opened it' })
  })

  it('reads a document by its sections', async () => {
    const id = await published()
    await beacon(id, { isInitial: true })
    await beacon(id, { sessionSeconds: 5, kind: 'sections', total: 3, parts: [{ n: 2, s: 5, t: 'Findings', v: true }], furthest: 2 })
    const a = await analytics(id)
    expect(a.sections).toEqual([{ section: 2, title: 'Findings', views: 1, totalTimeSeconds: 5 }])
    expect(a.slides).toBeUndefined()
    expect(a.dropOff).toEqual([{ section: 2, views: 1 }])
  })

  it('keeps the spec’s beacon as it was: a malformed body still answers success, a forged one stays bounded', async () => {
    const id = await published()
    expect((await s.api.send(recordAnalytics, { params: { id }, raw: 'not json' })).body).toEqual({ success: true })
    await beacon(id, { isInitial: true, kind: 'slides', total: 1e9, parts: [{ n: 1e9, s: 1 }, { n: 1, s: 1e9, t: 'x'.repeat(5000) }, 'junk'] })
    const a = await analytics(id)
    expect(a.views).toBe(1)
    expect(a.slides).toEqual([{ slide: 1, title: 'x'.repeat(120), views: 0, totalTimeSeconds: 600 }])
  })

  it('honours Global Privacy Control and Do Not Track: the view counts, nothing else is kept', async () => {
    const id = await published()
    await beacon(id, { isInitial: true, returning: true, kind: 'slides', total: 3, parts: [{ n: 1, s: 4, v: true }], furthest: 1 }, { 'sec-gpc': '1' })
    await beacon(id, { sessionSeconds: 30, kind: 'slides', total: 3, parts: [{ n: 2, s: 30, v: true }], furthest: 2 }, { dnt: '1' })
    const a = await analytics(id)
    expect(a.views).toBe(1)
    expect(a.totalTimeSeconds).toBe(0)
    expect(a.returningViews).toBe(0)
    expect(a.slides ?? []).toEqual([])
  })
})

describe('bots and link previews are not views', () => {
  const BOTS = {
    Slackbot: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    Twitterbot: 'Twitterbot/1.0',
    facebookexternalhit: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    Discordbot: 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    WhatsApp: 'WhatsApp/2.23.20.0',
    LinkedInBot: 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    TelegramBot: 'TelegramBot (like TwitterBot)',
    Googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    bingbot: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    curl: 'curl/8.5.0',
    HeadlessChrome: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/143.0.0.0 Safari/537.36',
  }

  it('counts each preview fetch of the share page as one botView and no view; its preview still has a title', async () => {
    const id = await published()
    // Previews come from elsewhere: through the tunnel.
    const elsewhere = testApi(s.ts.server.tunnelTarget)
    for (const [name, ua] of Object.entries(BOTS)) {
      const page = await elsewhere.send(sharePage, { params: { id }, headers: { 'user-agent': ua } })
      expect(page.status, name).toBe(200)
      expect(page.text, name).toContain('<meta property="og:title" content="Deck"')
    }
    const a = await analytics(id)
    expect(a.botViews).toBe(Object.keys(BOTS).length)
    expect(a.views).toBe(0)
  })

  it('counts nothing for a browser fetching the page: its view is the beacon the page sends once shown', async () => {
    const id = await published()
    await s.api.send(sharePage, { params: { id }, headers: { 'user-agent': DESKTOP } })
    expect(await analytics(id)).toMatchObject({ views: 0, botViews: 0 })
    await beacon(id, { isInitial: true })
    expect(await analytics(id)).toMatchObject({ views: 1, botViews: 0 })
  })

  it('drops a beacon from a crawler or a headless browser that ran the page', async () => {
    const id = await published()
    await beacon(id, { isInitial: true }, { 'user-agent': BOTS.HeadlessChrome })
    await beacon(id, { isInitial: true }, { 'user-agent': BOTS.Googlebot })
    expect((await analytics(id)).views).toBe(0)
  })
})

describe('a link per recipient', () => {
  const make = (id: string, body: object) => s.api.send(createLink, { params: { id }, body })

  it('attributes views and time to the link; revoking it shows a clear page and counts nothing; the main link is unaffected', async () => {
    const id = await published()
    const made = await make(id, { name: 'Dana at Acme' })
    expect(made.status).toBe(201)
    const dana = made.body.link
    expect(dana).toMatchObject({ name: 'Dana at Acme', status: 'active', views: 0 })
    expect(dana.url).toBe(`${s.ts.url}/share/${id}?link=${dana.id}`)
    const other = (await make(id, { name: 'Lee' })).body.link

    const page = await s.api.send(sharePage, { params: { id }, query: { link: dana.id }, headers: { 'user-agent': DESKTOP } })
    expect(page.status).toBe(200)
    expect(page.text).toContain(`"link":"${dana.id}"`)
    await viewDeck(id, { link: dana.id })
    const commented = await s.api.send(createComment, { params: { id }, body: { text: 'Pricing?', versionId: 'v1', filename: 'index.html', link: dana.id } })
    expect(commented.body.comment.link).toBeUndefined()

    let a = await analytics(id)
    const danaFigures = a.links.find((l: { id: string }) => l.id === dana.id)
    expect(danaFigures).toMatchObject({ name: 'Dana at Acme', views: 1, totalTimeSeconds: 9, comments: 1 })
    expect(danaFigures.slides.find((p: { slide: number }) => p.slide === 3).totalTimeSeconds).toBe(6)
    expect(a.recentViews.at(-1).text).toBe('Dana at Acme read 3 of 4 slides in 9 s, longest on slide 3')

    const revoked = await s.api.send(revokeLink, { params: { id, linkId: dana.id } })
    expect(revoked.body.link.status).toBe('revoked')
    const ended = await s.api.send(sharePage, { params: { id }, query: { link: dana.id }, headers: { 'user-agent': DESKTOP } })
    expect(ended.status).toBe(410)
    expect(ended.text).toContain('"view":"link-ended"')
    expect(ended.text).toContain('"linkStatus":"revoked"')
    await viewDeck(id, { link: dana.id })
    a = await analytics(id)
    expect(a.views).toBe(1)
    expect(a.links.find((l: { id: string }) => l.id === dana.id).views).toBe(1)

    // The folio's own link and the other recipient's still work and count.
    expect((await s.api.send(sharePage, { params: { id }, headers: { 'user-agent': DESKTOP } })).status).toBe(200)
    expect((await s.api.send(sharePage, { params: { id }, query: { link: other.id }, headers: { 'user-agent': DESKTOP } })).status).toBe(200)
    await beacon(id, { isInitial: true, link: other.id })
    await beacon(id, { isInitial: true })
    a = await analytics(id)
    expect(a.views).toBe(3)
    expect(a.links.find((l: { id: string }) => l.id === other.id).views).toBe(1)
    const listed = (await s.api.send(listLinks, { params: { id } })).body.links
    expect(listed.map((l: { name: string; status: string }) => [l.name, l.status])).toEqual([
      ['Dana at Acme', 'revoked'],
      ['Lee', 'active'],
    ])
  })

  it('expires a link after its views, and one that never existed says so too', async () => {
    const id = await published()
    const once = (await make(id, { name: 'Once', maxViews: 1 })).body.link
    await beacon(id, { isInitial: true, link: once.id })
    await beacon(id, { sessionSeconds: 20, link: once.id })
    const page = await s.api.send(sharePage, { params: { id }, query: { link: once.id }, headers: { 'user-agent': DESKTOP } })
    expect(page.status).toBe(410)
    expect(page.text).toContain('"linkStatus":"expired"')
    await beacon(id, { isInitial: true, link: once.id })
    const a = await analytics(id)
    expect(a.views).toBe(1)
    expect(a.links[0]).toMatchObject({ status: 'expired', views: 1, totalTimeSeconds: 20 })
    expect((await s.api.send(sharePage, { params: { id }, query: { link: 'AAAAAAAAAAAAAAAAAAAAAA' } })).status).toBe(410)
  })

  it('refuses a bad link with the reason, and an unknown one by its name', async () => {
    const id = await published()
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 'Old', expiresAt: '2020-01-01T00:00:00Z' }, { name: 'Zero', maxViews: 0 }]) {
      const reply = await make(id, body)
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body.error).toBe('INVALID_BODY')
    }
    const gone = await s.api.send(revokeLink, { params: { id, linkId: 'nope' } })
    expect(gone.status).toBe(404)
    expect(gone.body.error).toBe('Link not found')
    expect((await s.api.send(listLinks, { params: { id: 'AAAAAAAAAAAA' } })).status).toBe(404)
  })
})

describe('a nudge while someone reads', () => {
  it('tells the owner’s event stream as a view starts and ends, and no other viewer', async () => {
    const id = await published()
    await s.api.send(updateFolio, { params: { id }, body: { notifyViews: true } })
    const dana = (await s.api.send(createLink, { params: { id }, body: { name: 'Dana at Acme' } })).body.link
    const owner = await openEvents(s.api, id)
    // A viewer through the tunnel: no credential, not this machine.
    const viewer = await openEvents(testApi(s.ts.server.tunnelTarget), id)
    await beacon(id, { isInitial: true, link: dana.id })
    expect((await owner.next('view')).data).toMatchObject({ type: 'started', text: 'Dana at Acme opened it', linkName: 'Dana at Acme' })
    await viewDeck(id, { link: dana.id })
    const ended = await owner.next('view', (v) => v.type === 'ended')
    expect(ended.data.text).toBe('Dana at Acme read 3 of 4 slides in 9 s, longest on slide 3')
    // By the time the owner hears of a later view, the viewer's stream would have heard of all three.
    await beacon(id, { isInitial: true })
    await owner.next('view', (v) => v.type === 'started' && !v.linkName)
    expect(viewer.events.filter((e) => e.event === 'view')).toEqual([])
    await owner.cancel()
    await viewer.cancel()
  })
})
