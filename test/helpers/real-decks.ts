/**
 * Real decks and dashboards, made from what npm packages ship (not look-alikes): reveal.js's own
 * demo with its dist/, a Markdown deck rendered by @marp-team/marp-core, and a dashboard drawn by
 * chart.js from its UMD build. Each builder writes a folder a user could publish with
 * `folio create --dir <folder> --publish` and returns its path; the caller removes it.
 *
 * What the tests comment on is exported beside each builder (the texts and the selectors that
 * name the elements in the page as authored), so a bench or another test can aim at the same.
 */
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Marp } from '@marp-team/marp-core'

const require = createRequire(import.meta.url)

/** The root of an installed package (found through its package.json, which every package exports or ships). */
function packageRoot(name: string): string {
  // reveal.js and chart.js restrict their exports: resolve a file they do export, then walk up to the package.
  const entry = require.resolve(name)
  let dir = dirname(entry)
  while (!dir.endsWith(join('node_modules', name))) {
    const up = dirname(dir)
    if (up === dir) throw new Error(`no package root for ${name} above ${entry}`)
    dir = up
  }
  return dir
}

async function folder(parent: string | undefined, name: string): Promise<string> {
  const dir = join(parent ?? (await mkdtemp(join(tmpdir(), 'folio-real-deck-'))), name)
  await mkdir(dir, { recursive: true })
  return dir
}

/* ---------- reveal.js: its own demo ---------- */

/**
 * reveal.js's demo.html as index.html, with every file of reveal.js's dist/ (its plugins are in
 * dist/plugin/, which the demo loads) at the same relative paths. `hash: true` in the demo: the
 * deck names its slide in the URL (#/2 is the third slide).
 */
export async function revealDemo(parent?: string): Promise<string> {
  const root = packageRoot('reveal.js')
  const dir = await folder(parent, 'reveal-demo')
  await writeFile(join(dir, 'index.html'), await readFile(join(root, 'demo.html')))
  await cp(join(root, 'dist'), join(dir, 'dist'), { recursive: true })
  return dir
}

/** The demo's third slide (Reveal.getIndices().h === 2): the first of its vertical stack. */
export const REVEAL = {
  slide: 2,
  heading: 'Vertical Slides',
  paragraph: 'Slides can be nested inside of each other.',
}

/* ---------- Marp: a Markdown deck rendered by marp-core ---------- */

export const MARP_MARKDOWN = `---
theme: default
paginate: true
---

# Q3 2026 review

Sales, product and hiring

---

## Agenda

1. Highlights
2. Regional numbers
3. Product
4. Next quarter

---

## Regional numbers

| Region | Q2 | Q3 | Growth |
| ------ | -- | -- | ------ |
| North | 1.2 M | 1.4 M | +17% |
| South | 0.9 M | 1.0 M | +11% |
| East | 0.7 M | 0.92 M | +31% |
| West | 1.1 M | 1.05 M | −5% |

- East grew fastest
- West needs a plan

---

## Product

- Shipped the inbox
- Pins that follow their element

---

## Thank you

Questions?
`

/**
 * The deck marp-core renders from MARP_MARKDOWN, in a complete page with its CSS. Without
 * marp-cli's bespoke template there is no navigation: the slides are a column of
 * <svg data-marpit-svg>, each holding a <section id="N">, and a viewer scrolls.
 */
export function marpPage(markdown = MARP_MARKDOWN): string {
  const { html, css } = new Marp().render(markdown)
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Q3 2026 review</title>
<style>${css}</style>
<style>
  html { background: #e9ecef; }
  body { margin: 0; padding: 16px 0; }
  div.marpit > svg[data-marpit-svg] { display: block; width: min(100% - 32px, 1280px); height: auto; margin: 0 auto 16px;
    box-shadow: 0 2px 10px rgba(0, 0, 0, .15); }
</style></head><body>
${html}
</body></html>`
}

export async function marpDeck(parent?: string): Promise<string> {
  const dir = await folder(parent, 'marp-deck')
  await writeFile(join(dir, 'index.html'), marpPage())
  return dir
}

/** Marp's slide N is the Nth <svg data-marpit-svg>; its section has id="N". */
export const MARP = {
  slide: 2,
  /** The slide's box on the page (what scrolls into view). */
  slideBox: 'div.marpit > svg[data-marpit-svg]:nth-of-type(3)',
  /** “+31%”, East's growth, in the table of slide 3. */
  cell: 'section[id="3"] tbody tr:nth-child(3) td:nth-child(4)',
  cellText: '+31%',
  /** “West needs a plan”, the second point of the list on slide 3. */
  point: 'section[id="3"] ul li:nth-child(2)',
  pointText: 'West needs a plan',
}

/* ---------- Chart.js: a dashboard ---------- */

export function chartDashboardPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Growth dashboard</title>
<style>
  body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: #212529; background: #f8f9fa; }
  header { padding: 32px 24px 8px; max-width: 1100px; margin: 0 auto; }
  header h1 { margin: 0 0 4px; font-size: 30px; }
  .kpis { display: grid; grid-template-columns: repeat(3, 1fr); gap: 16px; margin: 24px 0 0; }
  .kpi { background: #fff; border-radius: 12px; padding: 16px; box-shadow: 0 1px 3px rgba(0, 0, 0, .08); }
  .kpi b { display: block; font-size: 26px; }
  main { max-width: 1100px; margin: 0 auto; padding: 0 24px 80px; }
  section { background: #fff; border-radius: 12px; padding: 20px 24px; margin-top: 24px; box-shadow: 0 1px 3px rgba(0, 0, 0, .08); }
  section h2 { margin: 0 0 4px; font-size: 20px; }
  section p { margin: 0 0 16px; color: #495057; }
  .chart { position: relative; height: 440px; }
  @media (max-width: 600px) {
    .kpis { grid-template-columns: 1fr; }
    .chart { height: 320px; }
  }
</style>
<script src="chart.umd.js"></script>
</head><body>
<header>
  <h1>Growth dashboard</h1>
  <p>Q3 2026, updated every Monday.</p>
  <div class="kpis">
    <div class="kpi">Revenue <b>4.37 M</b></div>
    <div class="kpi">Sign-ups <b>18,240</b></div>
    <div class="kpi">Churn <b>2.1%</b></div>
  </div>
</header>
<main>
  <section id="revenue">
    <h2>Revenue by region</h2>
    <p>Q2 against Q3, in millions.</p>
    <div class="chart"><canvas id="revenue-chart" role="img" aria-label="Bar chart: revenue by region, Q2 against Q3"></canvas></div>
  </section>
  <section id="signups">
    <h2>Weekly sign-ups</h2>
    <p>Thirteen weeks of the quarter; the campaign started in week 7.</p>
    <div class="chart"><canvas id="signups-chart" role="img" aria-label="Line chart: weekly sign-ups, weeks 1 to 13"></canvas></div>
  </section>
  <section id="plans">
    <h2>Plan mix</h2>
    <p>Paying workspaces by plan at the end of the quarter.</p>
    <div class="chart"><canvas id="plans-chart" role="img" aria-label="Doughnut chart: paying workspaces by plan"></canvas></div>
  </section>
</main>
<script>
  const common = { responsive: true, maintainAspectRatio: false };
  new Chart(document.getElementById('revenue-chart'), {
    type: 'bar',
    data: {
      labels: ['North', 'South', 'East', 'West'],
      datasets: [
        { label: 'Q2', data: [1.2, 0.9, 0.7, 1.1], backgroundColor: '#adb5bd' },
        { label: 'Q3', data: [1.4, 1.0, 0.92, 1.05], backgroundColor: '#3b5bdb' },
      ],
    },
    options: common,
  });
  new Chart(document.getElementById('signups-chart'), {
    type: 'line',
    data: {
      labels: Array.from({ length: 13 }, (_, i) => 'W' + (i + 1)),
      datasets: [{ label: 'Sign-ups', data: [1010, 1120, 1080, 1190, 1230, 1250, 1620, 1710, 1680, 1590, 1640, 1700, 1820], borderColor: '#2f9e44', tension: 0.3 }],
    },
    options: common,
  });
  new Chart(document.getElementById('plans-chart'), {
    type: 'doughnut',
    data: { labels: ['Free', 'Team', 'Business'], datasets: [{ data: [62, 29, 9], backgroundColor: ['#dee2e6', '#4c6ef5', '#f08c00'] }] },
    options: common,
  });
</script>
</body></html>`
}

/** The dashboard's index.html with chart.js's own UMD build beside it. */
export async function chartDashboard(parent?: string): Promise<string> {
  const dir = await folder(parent, 'chart-dashboard')
  await writeFile(join(dir, 'index.html'), chartDashboardPage())
  await cp(join(packageRoot('chart.js'), 'dist', 'chart.umd.js'), join(dir, 'chart.umd.js'))
  return dir
}

export const CHARTS = {
  /** The second chart's section and canvas. */
  section: '#signups',
  canvas: '#signups-chart',
  label: 'Line chart: weekly sign-ups, weeks 1 to 13',
  charts: ['#revenue-chart', '#signups-chart', '#plans-chart'],
}
