import { describe, expect, it } from 'vitest'
import { applyBeacon, MAX_BEACON_SECONDS, parseBeacon } from '../src/domain/analytics.js'
import { nextCommentId, openCommentsOf } from '../src/domain/comments.js'
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
    expect(a).toEqual({ views: 2, totalTimeSeconds: 45, avgTimeSeconds: 22.5, mobileViews: 1, desktopViews: 1 })
  })

  it('treats malformed beacons as empty, and caps a forged one', () => {
    for (const body of [undefined, null, 'x', 42, [], { sessionSeconds: -5 }, { sessionSeconds: 'lots' }, { sessionSeconds: Number.NaN }]) {
      expect(parseBeacon(body)).toEqual({ isInitial: false, sessionSeconds: 0, mobile: false })
    }
    expect(parseBeacon({ sessionSeconds: 1e12 }).sessionSeconds).toBe(MAX_BEACON_SECONDS)
  })
})

describe('comments', () => {
  it('gives unique, growing c_<timestamp> ids even within one millisecond', () => {
    const comments: any[] = []
    for (let i = 0; i < 5; i++) comments.push({ id: nextCommentId(comments, 1_000) })
    expect(comments.map((c) => c.id)).toEqual(['c_1000', 'c_1001', 'c_1002', 'c_1003', 'c_1004'])
    expect(nextCommentId(comments, 5_000)).toBe('c_5000')
  })

  it('shows viewers the unresolved comments of the latest version', () => {
    const c = (id: string, versionId: string, resolved: boolean) => ({ id, versionId, resolved }) as any
    expect(openCommentsOf([c('a', 'v1', false), c('b', 'v2', true), c('c', 'v2', false)], 'v2').map((x) => x.id)).toEqual(['c'])
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
