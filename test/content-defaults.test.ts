import { readFile, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Description, Title } from '../src/api/schemas.js'
import { cap, contentDefaults, DESCRIPTION_MAX, entryPage, EXCERPT_MAX, pageDefaults, TITLE_MAX } from '../src/domain/content-defaults.js'
import { chartDashboardPage, marpPage, revealDemo } from './helpers/real-decks.js'

// Issue 26: a new folio's title, description and mode come from its own page when nobody gave them.
/** reveal.js's demo.html, as the real-decks helper publishes it. */
async function revealPage(): Promise<string> {
  const dir = await revealDemo()
  try {
    return await readFile(join(dir, 'index.html'), 'utf8')
  } finally {
    await rm(dirname(dir), { recursive: true, force: true })
  }
}
const starter = async (mode: string) =>
  (await readFile(join(import.meta.dirname, '..', 'templates', 'starters', `${mode}.html`), 'utf8')).replaceAll('{{title}}', 'Starter')

describe('real decks and dashboards', () => {
  it('reveal.js’s own demo: its <title>, its meta description, a deck', async () => {
    expect(pageDefaults(await revealPage())).toEqual({
      title: 'reveal.js – The HTML Presentation Framework',
      description: 'A framework for easily creating beautiful presentations using HTML',
      projectMode: 'deck',
    })
  })

  it('a Marp deck rendered by marp-core is a deck, though it holds a table', () => {
    expect(pageDefaults(marpPage())).toEqual({ title: 'Q3 2026 review', description: 'Sales, product and hiring', projectMode: 'deck' })
  })

  it('a Chart.js dashboard is a dashboard, though its cards are <section>s', () => {
    expect(pageDefaults(chartDashboardPage())).toEqual({ title: 'Growth dashboard', description: 'Q3 2026, updated every Monday.', projectMode: 'dashboard' })
  })

  it.each([
    ['deck', 'deck'],
    ['dashboard', 'dashboard'],
    ['spreadsheet', 'spreadsheet'],
    ['document', 'document'],
  ])('the %s starter page is a %s', async (name, mode) => {
    expect(pageDefaults(await starter(name)).projectMode).toBe(mode)
  })
})

describe('the mode of pages written by hand', () => {
  const page = (head: string, body: string) => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`
  it.each([
    [
      'a report of prose and one table',
      page(
        '<title>Report</title>',
        '<h1>Report</h1><p>Findings.</p><table><tr><td>a</td><td>1</td></tr></table><p>More prose here, and a conclusion that says what it means.</p>',
      ),
      'document',
    ],
    ['plain text', '<h1>Hello</h1>', 'document'],
    ['slides by name', page('', '<div class="slide">1</div><div class="slide">2</div>'), 'deck'],
    [
      'a carousel of “slides” on a landing page',
      page('', '<div class="carousel"><div class="slide">1</div><div class="slide">2</div></div><p>Welcome.</p>'),
      'document',
    ],
    [
      'sections snapped one by one',
      page('<style>main { scroll-snap-type: y mandatory }</style>', '<main><section>1</section><section>2</section><section>3</section></main>'),
      'deck',
    ],
    ['sections each a screen high', page('<style>section { height: 100vh }</style>', '<section>1</section><section>2</section><section>3</section>'), 'deck'],
    [
      'a landing page with a full-screen hero',
      page('<style>.hero { min-height: 100vh }</style>', '<div class="hero">Hi</div><section>1</section><section>2</section><section>3</section>'),
      'document',
    ],
    ['impress.js', page('<script src="js/impress.js"></script>', '<div id="impress"><div class="step">1</div></div>'), 'deck'],
    [
      'remark',
      page(
        '',
        '<textarea id="source"># One\n---\n# Two</textarea><script src="https://remarkjs.com/downloads/remark-latest.min.js"></script><script>remark.create()</script>',
      ),
      'deck',
    ],
    ['Slidev’s build', page('<meta name="generator" content="Slidev">', '<div id="app"></div>'), 'deck'],
    [
      'ECharts',
      page('<script src="echarts.min.js"></script>', '<div id="main"></div><script>echarts.init(document.getElementById("main"))</script>'),
      'dashboard',
    ],
    ['Plotly', page('', '<div id="p"></div><script>Plotly.newPlot("p", [])</script>'), 'dashboard'],
    ['D3', page('<script src="https://d3js.org/d3.v7.min.js"></script>', '<svg></svg>'), 'dashboard'],
    ['two canvases', page('', '<canvas></canvas><canvas></canvas>'), 'dashboard'],
    [
      'many tables and little else',
      page('', `<h1>KPIs</h1>${'<table><tr><td>Revenue</td><td>4.2 M</td></tr><tr><td>Costs</td><td>3.1 M</td></tr></table>'.repeat(3)}`),
      'dashboard',
    ],
  ])('%s', (_name, html, mode) => {
    expect(pageDefaults(html).projectMode).toBe(mode)
  })

  it('reads no words from scripts, styles or comments', () => {
    const html =
      '<html><head><script>document.title = "<title>Fake</title>"; new Chart(x)</script></head><body><!-- <div class="reveal"><div class="slides"></div></div> --><style>h1:after{content:"Chart.js"}</style><h1>Real</h1></body></html>'
    // The script's Chart call counts as a chart (it is code that runs); its text is not the title.
    expect(pageDefaults(html)).toMatchObject({ title: 'Real', projectMode: 'dashboard' })
    expect(pageDefaults('<!-- <div class="reveal"><div class="slides"></div></div> --><p>Hi</p>').projectMode).toBe('document')
  })
})

describe('title and description', () => {
  it('decodes entities and collapses whitespace; an svg’s <title> is not the page’s', () => {
    const html = '<html><head><title>\n  Q3 &amp; Q4\n\t review&nbsp;&mdash; final  </title></head><body><svg><title>Bar</title></svg></body></html>'
    expect(pageDefaults(html).title).toBe('Q3 & Q4 review — final')
    expect(pageDefaults('<body><svg><title>Bar</title></svg><h2>Second level</h2></body>').title).toBe('Second level')
  })

  it('falls back to the first h1, then h2, then nothing', () => {
    expect(pageDefaults('<title>   </title><h2>Two</h2><h1>One <em>big</em></h1>').title).toBe('One big')
    expect(pageDefaults('<h2>Two</h2>').title).toBe('Two')
    expect(pageDefaults('<p>No heading</p>').title).toBeUndefined()
  })

  it('caps a long title to what the API takes, at a word', () => {
    const long = `${'word '.repeat(200)}end`
    const title = pageDefaults(`<title>${long}</title>`).title!
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX)
    expect(title.endsWith('word…')).toBe(true)
    expect(Title.parse(title)).toBe(title)
  })

  it('takes the meta description, og:description, then the first paragraph with words (not a kicker)', () => {
    expect(pageDefaults('<meta name="Description" content=" About  this ">').description).toBe('About this')
    expect(pageDefaults('<meta property="og:description" content="From OG">').description).toBe('From OG')
    expect(pageDefaults('<p class="eyebrow">Essay · 2025</p><p>  </p><p>The <b>first</b>\n paragraph.</p>').description).toBe('The first paragraph.')
    expect(pageDefaults('<h1>Only a heading</h1>').description).toBeUndefined()
    const excerpt = pageDefaults(`<p>${'long sentence '.repeat(100)}</p>`).description!
    expect(excerpt.length).toBeLessThanOrEqual(EXCERPT_MAX)
    expect(excerpt.endsWith('…')).toBe(true)
    const authored = pageDefaults(`<meta name="description" content="${'x'.repeat(20_000)}">`).description!
    expect(authored.length).toBe(DESCRIPTION_MAX)
    expect(Description.parse(authored)).toBe(authored)
  })

  it('cuts where no word is near', () => {
    expect(cap('abcdefghij', 5)).toBe('abcd…')
    expect(cap('short', 5)).toBe('short')
  })
})

describe('a folio’s files', () => {
  it('reads the page the folio opens on: index.html, else the first HTML file', () => {
    expect(entryPage(['a.css', 'b.html', 'index.html'])).toBe('index.html')
    expect(entryPage(['a.css', 'slides/intro.htm', 'b.html'])).toBe('slides/intro.htm')
    expect(entryPage(['a.css'])).toBeUndefined()
    expect(contentDefaults({ 'style.css': 'h1{}', 'about.html': '<title>About</title>' })).toEqual({
      entry: 'about.html',
      title: 'About',
      projectMode: 'document',
    })
  })

  it('says nothing about a folio without a page', () => {
    expect(contentDefaults({})).toEqual({})
    expect(contentDefaults({ 'notes.md': '# Notes' })).toEqual({})
    expect(contentDefaults({ 'index.html': 'data:text/html;base64,PGgxPng8L2gxPg==' })).toEqual({})
  })
})
