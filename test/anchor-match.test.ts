import { describe, expect, it } from 'vitest'
import { parsePage, relocate } from '../src/domain/anchor-match.js'
import { cssEscape, robustSelector, safeSelectOne } from '../src/domain/robust-selector.js'

const table = (rows: string[]) =>
  `<!doctype html><body><main><h1>Sales</h1><table>${rows.map((r) => `<tr><td>${r}</td><td>${r.length}</td></tr>`).join('')}</table></main></body>`
const textAt = (html: string, selector: string) => {
  const page = parsePage(html)
  const el = safeSelectOne(selector, page.doc)
  return el?.children.map((c: any) => c.data ?? '').join('')
}

describe('finding a pin again in a new version', () => {
  it('keeps a selector that still points at the same text (implied tbody, as in the browser)', () => {
    const before = parsePage(table(['Jun', 'Jul', 'Sep']))
    const anchor = { selector: 'main > table > tbody > tr:nth-of-type(3) > td:nth-of-type(1)', quote: 'Sep' }
    expect(relocate(parsePage(table(['Jun', 'Jul', 'Sep', 'Oct'])), anchor, before)).toEqual({ found: true, selector: anchor.selector })
  })

  it('follows the element when a row is inserted before it, with a selector that works', () => {
    const anchor = { selector: 'main > table > tbody > tr:nth-of-type(3) > td:nth-of-type(1)', quote: 'September +31%' }
    const next = table(['June', 'July', 'August', 'September +31%'])
    const result = relocate(parsePage(next), anchor, parsePage(table(['June', 'July', 'September +31%'])))
    expect(result.found).toBe(true)
    const selector = (result as { selector: string }).selector
    expect(selector).not.toBe(anchor.selector)
    expect(textAt(next, selector)).toBe('September +31%')
  })

  it('follows the element when it is wrapped in a new div; prefers its id', () => {
    const anchor = { selector: 'body > main:nth-of-type(1) > p:nth-of-type(2)', quote: 'Revenue grew 31% in September' }
    const before = parsePage('<main><p>Intro</p><p id="rev">Revenue grew 31% in September</p></main>')
    const next = '<main><p>Intro</p><div class="card"><p id="rev">Revenue grew   31% in\n September</p></div></main>'
    expect(relocate(parsePage(next), anchor, before)).toEqual({ found: true, selector: '#rev' })
  })

  it('keeps a selector whose element was edited slightly', () => {
    const anchor = { selector: '#rev', quote: 'Revenue grew 31% in September' }
    const next = parsePage('<main><p id="rev">Revenue grew 34% in September</p></main>')
    expect(relocate(next, anchor, parsePage('<main><p id="rev">Revenue grew 31% in September</p></main>'))).toEqual({ found: true, selector: '#rev' })
  })

  it('calls an element gone when it was in the page before and is nowhere now', () => {
    const anchor = { selector: 'main > p:nth-of-type(2)', quote: 'Revenue grew 31% in September' }
    const before = parsePage('<main><p>Intro</p><p>Revenue grew 31% in September</p><p>Outro, a long closing remark</p></main>')
    expect(relocate(parsePage('<main><p>Intro</p><p>Outro, a long closing remark</p></main>'), anchor, before)).toEqual({ found: false, judged: true })
  })

  it('cannot judge an element a script builds: not in the HTML before either', () => {
    const anchor = { selector: 'svg > g:nth-of-type(9)', quote: 'Sep' }
    expect(relocate(parsePage('<div id="chart"></div><p>v2</p>'), anchor, parsePage('<div id="chart"></div>'))).toEqual({ found: false, judged: false })
  })

  it('prefers the element whose text is exact over a look-alike at the old place, and the same tag', () => {
    const anchor = { selector: 'ul > li:nth-of-type(1)', quote: 'North sales 31%' }
    const next = '<ul><li>North sales 30%</li><li>South</li></ul><section><div><h3>North sales 31%</h3></div><span>North sales 31%</span></section>'
    const result = relocate(parsePage(next), { ...anchor, selector: 'ul > li:nth-of-type(1)' }, parsePage('<ul><li>North sales 31%</li></ul>'))
    expect(result).toEqual({ found: true, selector: 'body > section:nth-of-type(1) > div:nth-of-type(1) > h3:nth-of-type(1)' })
  })

  it('compares only the start of a quote the share page cut at 300 characters', () => {
    const long = `${'Lorem ipsum dolor sit amet. '.repeat(20)}`
    const anchor = { selector: 'p:nth-of-type(9)', quote: long.replace(/\s+/g, ' ').trim().slice(0, 300) }
    const result = relocate(parsePage(`<article><h2>x</h2><p>${long} and more at the end</p></article>`), anchor, parsePage(`<p>${long}</p>`))
    expect(result).toEqual({ found: true, selector: 'body > article:nth-of-type(1) > p:nth-of-type(1)' })
  })

  it('never throws on a selector it cannot parse', () => {
    expect(relocate(parsePage('<p>x</p>'), { selector: 'p:::nope((', quote: 'zzz' }, parsePage('<p>x</p>'))).toEqual({ found: false, judged: false })
  })
})

describe('robust selectors', () => {
  it('use an id, then a data attribute, then a path from the nearest unique id', () => {
    const page = parsePage(
      '<div id="deck"><section data-slide="3"><p>a</p><p class="x">b</p></section><section data-slide="4"><p>c</p></section></div><p id="1st">d</p>',
    )
    const pick = (s: string) => safeSelectOne(s, page.doc)!
    expect(robustSelector(pick('#\\31 st'), page.doc)).toBe('#\\31 st')
    expect(robustSelector(pick('section[data-slide="4"]'), page.doc)).toBe('section[data-slide="4"]')
    expect(robustSelector(pick('.x'), page.doc)).toBe('#deck > section:nth-of-type(1) > p:nth-of-type(2)')
    expect(cssEscape('a b"c')).toBe('a\\ b\\"c')
    expect(cssEscape('-1x')).toBe('-\\31 x')
  })
})
