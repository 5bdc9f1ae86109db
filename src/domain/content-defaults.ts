import { selectAll as cssSelectAll, selectOne as cssSelectOne } from 'css-select'
import { type AnyNode, type Document, type Element, isTag, isText } from 'domhandler'
import { parse } from 'parse5'
import { adapter } from 'parse5-htmlparser2-tree-adapter'
import type { ProjectMode } from './model.js'

/**
 * What a new folio's own page says about it (issue 26): a title, a description and a mode, for a
 * caller that gave none. The CLI (folio create) and the MCP create_folio tool use it; POST
 * /api/files keeps the spec's defaults (title required, projectMode deck, a generic description).
 *
 * The page is parsed as a browser does (parse5), so entities are decoded and text inside
 * <script>, <style> and comments never counts as the page's words.
 */

/** The Title schema's ceiling (api/schemas.ts). */
export const TITLE_MAX = 500
/** A description taken from a paragraph is a line about the folio, not the paragraph. */
export const EXCERPT_MAX = 280
/** The Description schema's ceiling (api/schemas.ts): an authored meta description is kept whole up to it. */
export const DESCRIPTION_MAX = 10_000
/** Enough of a page for its head and the framework it uses; bounds the work on a huge page. */
const SCAN_MAX = 1_000_000

export interface ContentDefaults {
  /** The page the folio opens on (the share page's choice), if it has one. */
  entry?: string
  title?: string
  description?: string
  projectMode?: ProjectMode
}

/** The page a folio opens on: index.html, else its first HTML file (as server/viewer/viewer-routes.ts picks it). */
export function entryPage(paths: string[]): string | undefined {
  return paths.includes('index.html') ? 'index.html' : paths.find((p) => /\.html?$/i.test(p))
}

/** Defaults from a folio's files (path → content); nothing for a folio without an HTML page. */
export function contentDefaults(files: Record<string, string>): ContentDefaults {
  const entry = entryPage(Object.keys(files))
  const html = entry === undefined ? undefined : files[entry]
  // An image stored as a data: URI under an .html name is not a page.
  if (entry === undefined || html === undefined || html.startsWith('data:')) return {}
  return { entry, ...pageDefaults(html) }
}

/** Defaults from one HTML page. */
export function pageDefaults(html: string): Omit<ContentDefaults, 'entry'> {
  const doc = parse(html.slice(0, SCAN_MAX), { treeAdapter: adapter }) as unknown as Document
  return { title: titleOf(doc), description: descriptionOf(doc), projectMode: modeOf(doc) }
}

// Our selectors are fixed and valid: css-select's types, narrowed to domhandler's nodes.
type Root = Document | Element | AnyNode[]
const selectAll = (selector: string, root: Root) => cssSelectAll<AnyNode, Element>(selector, root)
const selectOne = (selector: string, root: Root) => cssSelectOne<AnyNode, Element>(selector, root)

/* ---------- title and description ---------- */

/** Elements whose text is not the page's prose. */
const NOT_PROSE = new Set(['script', 'style', 'template', 'noscript', 'textarea'])

function textOf(node: AnyNode): string {
  if (isText(node)) return node.data
  if (!isTag(node) || NOT_PROSE.has(node.name)) return ''
  let text = ''
  for (const child of node.children) text += textOf(child)
  // Block ends and <br> separate words the markup put on different lines.
  return node.name === 'br' ? ' ' : text
}

/** The text of a <script> or <style>: its text children, as written. */
const rawText = (el: Element) => el.children.map((c) => (isText(c) ? c.data : '')).join('')

const clean = (text: string) => text.replace(/\s+/g, ' ').trim()

/** At most `max` characters, cut at a word where one is near, with an ellipsis. */
export function cap(text: string, max: number): string {
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`
}

function titleOf(doc: Document): string | undefined {
  // The head's <title> (parse5 decodes its entities); an svg's <title> names a shape, not the page.
  for (const el of [selectOne('head > title', doc), selectOne('h1', doc), selectOne('h2', doc)]) {
    const text = el ? clean(textOf(el)) : ''
    if (text) return cap(text, TITLE_MAX)
  }
  return undefined
}

function descriptionOf(doc: Document): string | undefined {
  for (const selector of [
    'meta[name="description" i]',
    'meta[property="og:description" i]',
    'meta[name="og:description" i]',
    'meta[name="twitter:description" i]',
  ]) {
    const text = clean(selectOne(selector, doc)?.attribs.content ?? '')
    if (text) return cap(text, DESCRIPTION_MAX)
  }
  for (const p of selectAll('body p', doc)) {
    // A kicker above a heading ("Essay · 2025") labels the page; it does not describe it.
    if (/\b(eyebrow|kicker|overline|label)\b/i.test(p.attribs.class ?? '')) continue
    const text = clean(textOf(p))
    if (text) return cap(text, EXCERPT_MAX)
  }
  return undefined
}

/* ---------- mode ---------- */

/** Markup that only slide frameworks write: reveal.js, Marp/Marpit, bespoke, impress.js, Slidev, shower, deck.js, WebSlides. */
const DECK_MARKUP = [
  '.reveal .slides',
  'svg[data-marpit-svg]',
  '[data-marpit-pagination]',
  'div.marpit > section',
  '[class*="bespoke-marp"]',
  'body[data-bespoke-view]',
  '.bespoke-parent',
  '#impress .step',
  '#slidev-app, .slidev-layout, .slidev-page',
  'body.shower, .shower .slide',
  '.deck-container .slide',
  '#webslides',
  'textarea#source',
].join(', ')
/** Their scripts, by file name or by the call that starts them (remark's deck is Markdown in textarea#source). */
const DECK_SCRIPT =
  /\breveal(\.esm)?(\.min)?\.js|\bReveal\.initialize\(|\bimpress(\.min)?\.js|\bimpress\(\)\.init\(|\bremark(-latest)?(\.min)?\.js|\bremark\.create\(|\bbespoke(\.min)?\.js|\bbespoke\.from\(|\bshower(\.min)?\.js|\bwebslides(\.min)?\.js/i
const DECK_GENERATOR = /slidev|marp|reveal|impress|remark|spectacle|shower|bespoke/i
/** Slides by their names, outside a carousel (whose items are called slides too). */
const SLIDE_MARKUP = '.slide, [data-slide], [aria-roledescription="slide" i]'
const CAROUSEL = '.carousel, .slider, .swiper, .slick-slider, .glide, .splide, [aria-roledescription="carousel" i]'
/** Chart libraries, by script file name or by the call that draws. */
const CHART_SCRIPT =
  /\bchart(\.umd)?(\.min)?\.js|\bnew Chart\(|\becharts\b|\bplotly\b|\bd3(\.v\d)?(\.min)?\.js|\bd3\.(select|scale\w*)\(|\bhighcharts\b|\bapexcharts\b|\bvega(-lite|-embed)?(\.min)?\.js|\bvegaEmbed\(|\bgoogle\.charts\.|gstatic\.com\/charts|\bchartist\b|\bamcharts\b/i
/** Dashboard parts by their class names (the dashboard starter's .kpi and .chart cards). */
const DASHBOARD_PARTS = /^(kpis?|charts?|metrics?|sparkline|gauge|widget)$/

/** A page's mode: a slide framework or slides → deck; charts → dashboard; a page that is one big table → spreadsheet; else document. */
function modeOf(doc: Document): ProjectMode {
  const scripts = selectAll('script', doc)
    .map((s) => `${s.attribs.src ?? ''}\n${rawText(s)}`)
    .join('\n')
  const generator = selectOne('meta[name="generator" i]', doc)?.attribs.content ?? ''
  if (selectOne(DECK_MARKUP, doc) || DECK_SCRIPT.test(scripts) || DECK_GENERATOR.test(generator)) return 'deck'
  if (!selectOne(CAROUSEL, doc) && selectAll(SLIDE_MARKUP, doc).length >= 2) return 'deck'
  const classes = selectAll('[class]', doc).flatMap((el) => el.attribs.class!.split(/\s+/))
  if (CHART_SCRIPT.test(scripts) || selectAll('canvas', doc).length >= 2 || classes.filter((c) => DASHBOARD_PARTS.test(c)).length >= 2) return 'dashboard'
  if (fullScreenSections(doc)) return 'deck'
  return tableMode(doc) ?? 'document'
}

/**
 * Three or more sibling <section>s snapped to one by one, or each sized to the screen or to 16:9:
 * slides without a framework. (A landing page's 100vh hero is on one block, not on every section.)
 */
const SLIDE_CSS = /scroll-snap-type\s*:\s*(x|y|both|block|inline)|section[^{}]*\{[^}]*(\b(min-)?height\s*:\s*100d?vh|aspect-ratio\s*:\s*16\s*\/\s*9)/i
function fullScreenSections(doc: Document): boolean {
  if (!SLIDE_CSS.test(selectAll('style', doc).map(rawText).join('\n'))) return false
  return selectAll('section', doc).some((s) => s.parent !== null && s.parent.children.filter((c) => isTag(c) && c.name === 'section').length >= 3)
}

/** Pages that are mostly tables: one or two → a spreadsheet, three and more → a dashboard. */
function tableMode(doc: Document): ProjectMode | undefined {
  const body = selectOne('body', doc)
  const tables = selectAll('table', doc).filter((t) => !selectOne('table', t.children))
  if (!body || tables.length === 0) return undefined
  const all = clean(textOf(body)).length
  const inTables = tables.reduce((n, t) => n + clean(textOf(t)).length, 0)
  if (all === 0 || inTables / all < 0.6) return undefined
  if (tables.length >= 3) return 'dashboard'
  const cells = Math.max(...tables.map((t) => selectAll('td, th', t).length))
  return cells >= 40 ? 'spreadsheet' : undefined
}
