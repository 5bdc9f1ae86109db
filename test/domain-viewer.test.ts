import { describe, expect, it } from 'vitest'
import { applyBeacon, MAX_BEACON_SECONDS, parseBeacon } from '../src/domain/analytics.js'
import { groupFeedback, isOnPage, newestThreads, openCount } from '../src/domain/comment-threads.js'
import { commentNumber, nextCommentNumber } from '../src/domain/comments.js'
import { injectBeforeBodyEnd, jsonForScript } from '../src/domain/html-inject.js'
import { sniffImage } from '../src/domain/image-sniff.js'
import { EMPTY_ANALYTICS } from '../src/domain/model.js'
import { tinyBmp, tinyGif, tinyIco, tinyJpegHeader, tinyPng, tinySvg, tinyWebpHeader } from './helpers/images.js'

describe('image sniffing by bytes', () => {
  it.each([
    ['PNG', tinyPng(), 'image/png'],
    ['JPEG', tinyJpegHeader(), 'image/jpeg'],
    ['GIF', tinyGif(), 'image/gif'],
    ['WebP', tinyWebpHeader(), 'image/webp'],
    ['ICO', tinyIco(), 'image/x-icon'],
    ['BMP', tinyBmp(), 'image/bmp'],
    ['SVG', tinySvg(), 'image/svg+xml'],
    ['SVG without prolog', Buffer.from('<svg viewBox="0 0 1 1"/>'), 'image/svg+xml'],
  ])('recognises %s', (_name, bytes, mime) => {
    expect(sniffImage(bytes)).toBe(mime)
  })

  it.each([
    ['text named .png', Buffer.from('just some text')],
    ['HTML', Buffer.from('<!doctype html><html><svg></svg></html>')],
    ['an unterminated comment', Buffer.from('<!-- <svg></svg>')],
    ['a truncated PNG signature', Buffer.from([0x89, 0x50, 0x4e, 0x47])],
    ['RIFF that is not WebP', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE')])],
    ['invalid UTF-8', Buffer.from([0xff, 0xfe, 0x3c, 0x73])],
    ['empty', Buffer.alloc(0)],
    ['text that starts with BM', Buffer.from('BMW quarterly report: revenue up, costs down, outlook steady.')],
  ])('refuses %s', (_name, bytes) => {
    expect(sniffImage(bytes)).toBeUndefined()
  })
})

describe('analytics beacons', () => {
  it('counts views, time, averages and devices', () => {
    let a = applyBeacon(EMPTY_ANALYTICS, parseBeacon({ isInitial: true, device: 'mobile' }))
    a = applyBeacon(a, parseBeacon({ isInitial: true, device: 'desktop' }))
    a = applyBeacon(a, parseBeacon({ sessionSeconds: 30 }))
    a = applyBeacon(a, parseBeacon({ sessionSeconds: 15 }))
    expect(a).toMatchObject({ views: 2, totalTimeSeconds: 45, avgTimeSeconds: 22.5, mobileViews: 1, desktopViews: 1 })
  })

  it('treats malformed beacons as empty, and caps a forged one', () => {
    for (const body of [undefined, null, 'x', 42, [], { sessionSeconds: -5 }, { sessionSeconds: 'lots' }, { sessionSeconds: Number.NaN }]) {
      expect(parseBeacon(body)).toEqual({ isInitial: false, sessionSeconds: 0, mobile: false, returning: false, completed: false })
    }
    expect(parseBeacon({ sessionSeconds: 1e12 }).sessionSeconds).toBe(MAX_BEACON_SECONDS)
  })
})

describe('comments', () => {
  it('gives unique, growing c_<timestamp> ids from the high-water mark, even within one millisecond', () => {
    let highWater = 0
    const ids: number[] = []
    for (let i = 0; i < 5; i++) ids.push((highWater = nextCommentNumber(highWater, 1_000)))
    expect(ids).toEqual([1000, 1001, 1002, 1003, 1004])
    expect(nextCommentNumber(highWater, 5_000)).toBe(5000)
    // A clock that stepped back never gives an id again.
    expect(nextCommentNumber(5000, 10)).toBe(5001)
  })

  it('reads only c_<n> ids as numbers', () => {
    expect(commentNumber('c_1712000000000')).toBe(1712000000000)
    for (const id of ['c_', 'c_0', 'c_007', 'c_1e3', 'x_5', 'c_99999999999999999', 'c_5 ']) expect(commentNumber(id)).toBeUndefined()
  })

  it('shows viewers the unresolved comments of the latest version, none deleted', () => {
    const c = (id: string, versionId: string, resolved: boolean, deletedAt?: string) => ({ id, versionId, resolved, deletedAt }) as any
    const all = [c('a', 'v1', false), c('b', 'v2', true), c('c', 'v2', false), c('d', 'v2', false, '2026-01-01T00:00:00.000Z')]
    expect(all.filter(isOnPage('v2')).map((x: any) => x.id)).toEqual(['c'])
  })

  it('puts a pin on the page by the version it is anchored on, never an outdated one or a reply', () => {
    const onPage = isOnPage('v3')
    expect(onPage({ id: 'c_1', versionId: 'v1', anchoredVersionId: 'v3', resolved: false })).toBe(true)
    expect(onPage({ id: 'c_2', versionId: 'v3', anchoredVersionId: 'v2', resolved: false })).toBe(false)
    expect(onPage({ id: 'c_3', versionId: 'v1', anchoredVersionId: 'v3', outdated: true, resolved: false })).toBe(false)
    expect(onPage({ id: 'c_4', versionId: 'v3', parentId: 'c_1', resolved: false })).toBe(false)
  })

  it('groups open threads for the owner: on the page, outdated, earlier; replies under their parent, counted', () => {
    const all = [
      { id: 'c_1', versionId: 'v1', anchoredVersionId: 'v2', resolved: false },
      { id: 'c_2', versionId: 'v1', anchoredVersionId: 'v1', outdated: true, resolved: false },
      { id: 'c_3', versionId: 'v1', resolved: false },
      { id: 'c_4', versionId: 'v2', resolved: true },
      { id: 'c_5', versionId: 'v2', parentId: 'c_1', resolved: false },
      { id: 'c_6', versionId: 'v2', parentId: 'c_4', resolved: false },
      { id: 'c_7', versionId: 'v2', parentId: 'c_1', resolved: false, deletedAt: '2026-01-01T00:00:00.000Z' },
    ]
    const groups = groupFeedback(all, 'v2')
    const ids = (threads: typeof groups.onPage) => threads.map((t) => [t.comment.id, ...t.replies.map((r) => r.id)])
    expect(ids(groups.onPage)).toEqual([['c_1', 'c_5']])
    expect(ids(groups.outdated)).toEqual([['c_2']])
    expect(ids(groups.earlier)).toEqual([['c_3']])
    // c_6 answers a resolved thread: not open on its own; c_7 is deleted.
    expect(openCount(groups)).toBe(4)
  })

  it('picks the newest threads reading newest first, replies waiting for their parent, within the limit', () => {
    const all = [
      { id: 'c_1', versionId: 'v1', resolved: false },
      { id: 'c_2', versionId: 'v1', resolved: true },
      { id: 'c_3', versionId: 'v1', parentId: 'c_1', resolved: false },
      { id: 'c_4', versionId: 'v1', parentId: 'c_2', resolved: false },
      { id: 'c_5', versionId: 'v1', resolved: false },
    ]
    const pick = (limit: number) => {
      const threads = newestThreads<(typeof all)[number]>({ limit, top: isOnPage('v1'), reply: (c) => !c.resolved })
      for (const c of [...all].reverse()) if (!threads.visit(c)) break
      return threads.result().map((c) => c.id)
    }
    expect(pick(10)).toEqual(['c_1', 'c_3', 'c_5'])
    expect(pick(1)).toEqual(['c_5'])
  })
})

describe('html injection', () => {
  it('puts the bridge before the closing body, whatever the case, or at the end', () => {
    expect(injectBeforeBodyEnd('<html><BODY>x</BODY></html>', '<s>')).toBe('<html><BODY>x<s></BODY></html>')
    expect(injectBeforeBodyEnd('<p>x', '<s>')).toBe('<p>x<s>')
  })
  it('embeds JSON that cannot close its script tag', () => {
    const out = jsonForScript({ title: '</script><script>alert(1)</script>' })
    expect(out).not.toContain('</script>')
    expect(JSON.parse(out).title).toBe('</script><script>alert(1)</script>')
  })
})
