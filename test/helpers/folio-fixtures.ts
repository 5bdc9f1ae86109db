/**
 * Three realistic folios for the browser tests of pins (issue 9): a 5-slide deck, a long
 * document with a table and a chart dashboard whose SVG points are elements. Each is written the
 * way such pages are found in the wild (no ids on most things, layouts that change with the
 * width), so a pin has to find its element rather than a page percentage.
 */

/** A 16:9 deck scaled into the window (black bars on a phone), one slide shown at a time. */
export function deck(options: { extraSlideBefore?: number; rows?: string[][]; table?: boolean } = {}): string {
  const rows = options.rows ?? [
    ['North', '1.2 M', '1.4 M', '+17%'],
    ['South', '0.9 M', '1.0 M', '+11%'],
    ['East', '0.7 M', '0.92 M', '+31%'],
    ['West', '1.1 M', '1.05 M', '−5%'],
  ]
  const table =
    options.table === false
      ? '<p>The regional table moved to the appendix.</p>'
      : `<table class="numbers"><thead><tr><th>Region</th><th>Q2</th><th>Q3</th><th>Growth</th></tr></thead>
      <tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n')}</tbody></table>`
  const slides = [
    '<section class="slide cover"><p class="eyebrow">Quarterly business review</p><h1>Q3 2026</h1><p>Sales, product and hiring</p></section>',
    '<section class="slide"><h2>Agenda</h2><ol><li>Highlights</li><li>Regional numbers</li><li>Product</li><li>Next quarter</li></ol></section>',
    `<section class="slide"><h2>Regional numbers</h2>${table}</section>`,
    '<section class="slide"><h2>Product</h2><ul><li>Shipped the inbox</li><li>Pins that follow their element</li></ul><p class="note">Two launches, no incidents.</p></section>',
    '<section class="slide closing"><h2>Thank you</h2><p>Questions?</p></section>',
  ]
  if (options.extraSlideBefore !== undefined) {
    slides.splice(options.extraSlideBefore, 0, '<section class="slide"><h2>Highlights</h2><p>Best quarter so far.</p></section>')
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>QBR deck</title><style>
  html, body { margin: 0; height: 100%; background: #000; overflow: hidden; font-family: system-ui, sans-serif; }
  body { display: grid; place-items: center; }
  .deck { position: relative; width: min(100vw, 177.78vh); aspect-ratio: 16 / 9; }
  .slide { position: absolute; inset: 0; container-type: inline-size; background: #fff; padding: 5cqw 6cqw;
    box-sizing: border-box; overflow: hidden; opacity: 0; visibility: hidden; transition: opacity .2s ease, visibility .2s; }
  .slide.active { opacity: 1; visibility: visible; }
  .slide h1 { font-size: 8cqw; margin: 0; } .slide h2 { font-size: 4.5cqw; margin: 0 0 3cqw; }
  .slide p, .slide li { font-size: 2.4cqw; }
  .cover { background: #3b5bdb; color: #fff; } .closing { background: #0b1020; color: #fff; }
  .numbers { border-collapse: collapse; width: 100%; font-size: 2.6cqw; }
  .numbers th, .numbers td { border-bottom: .2cqw solid #dee2e6; padding: 1.2cqw 1.6cqw; text-align: left; }
  .counter { position: fixed; right: 12px; bottom: 8px; color: #adb5bd; font-size: 12px; }
</style></head><body>
<main class="deck">
${slides.join('\n')}
</main>
<div class="counter" id="counter"></div>
<script>
  const slides = [...document.querySelectorAll('.slide')];
  let current = 0;
  function show(i) {
    current = Math.max(0, Math.min(slides.length - 1, i));
    slides.forEach((s, n) => s.classList.toggle('active', n === current));
    document.getElementById('counter').textContent = (current + 1) + ' / ' + slides.length;
    if (location.hash !== '#' + (current + 1)) history.replaceState(null, '', '#' + (current + 1));
  }
  document.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowRight' || e.key === 'PageDown') show(current + 1);
    if (e.key === 'ArrowLeft' || e.key === 'PageUp') show(current - 1);
  });
  addEventListener('hashchange', () => show((parseInt(location.hash.slice(1), 10) || 1) - 1));
  show((parseInt(location.hash.slice(1), 10) || 1) - 1);
</script>
</body></html>`
}

const PARAGRAPH =
  'Our customers told us what they need from the report: fewer charts, the numbers that moved and why, and a clear owner for each next step. This section keeps to that.'

/** A long report: sections of text, then a table that becomes cards on a phone. */
export function documentPage(options: { movedTable?: boolean } = {}): string {
  const rows = [
    ['Onboarding', 'Ana', 'On track', '12 days'],
    ['Billing revamp', 'Ben', 'At risk', '30 days'],
    ['Search', 'Chloé', 'On track', '8 days'],
    ['Mobile app', 'Dev', 'Late', '45 days'],
    ['Data export', 'Eli', 'Done', '0 days'],
    ['Single sign-on', 'Fay', 'On track', '20 days'],
  ]
  const table = `<h2>Projects</h2><table class="projects"><thead><tr><th>Project</th><th>Owner</th><th>Status</th><th>Left</th></tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((c, i) => `<td data-label="${['Project', 'Owner', 'Status', 'Left'][i]}">${c}</td>`).join('')}</tr>`).join('\n')}
</tbody></table>`
  const sections = ['Summary', 'Customers', 'Revenue', 'Costs', 'Hiring', 'Risks'].map(
    (title) => `<h2>${title}</h2><p>${PARAGRAPH}</p><p>${PARAGRAPH}</p><p>${PARAGRAPH}</p>`,
  )
  const changes = Array.from(
    { length: 14 },
    (_, i) => `<p>2026-10-${String(i + 1).padStart(2, '0')}: ${['Prices', 'Copy', 'Figures', 'Owners'][i % 4]} updated.</p>`,
  ).join('')
  const extras = `<h2>Changelog</h2><div class="log">${changes}</div>
<details class="appendix"><summary>Appendix: method</summary><p>Numbers are from the billing system, taken on the first working day of the month.</p></details>`
  // A new version may move the table from the end of the report to its start.
  const body = options.movedTable ? [table, ...sections, extras] : [...sections, table, extras]
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Status report</title><style>
  body { margin: 0; font: 17px/1.6 Georgia, serif; color: #212529; }
  article { max-width: 760px; margin: 0 auto; padding: 32px 20px 120px; }
  h1 { font: 700 34px/1.2 system-ui, sans-serif; } h2 { font: 650 22px/1.3 system-ui, sans-serif; margin-top: 40px; }
  table { width: 100%; border-collapse: collapse; font: 15px/1.4 system-ui, sans-serif; }
  th, td { text-align: left; padding: 10px 8px; border-bottom: 1px solid #dee2e6; }
  .log { max-height: 150px; overflow: auto; border: 1px solid #dee2e6; border-radius: 8px; padding: 0 12px; font-size: 15px; }
  details { margin-top: 24px; } summary { cursor: pointer; font-weight: 600; }
  @media (max-width: 600px) {
    thead { display: none; }
    table, tbody, tr, td { display: block; width: 100%; box-sizing: border-box; }
    tr { margin-bottom: 14px; border: 1px solid #dee2e6; border-radius: 8px; padding: 6px 10px; }
    td { border: 0; padding: 4px 0 4px 40%; position: relative; }
    td::before { content: attr(data-label); position: absolute; left: 0; font-weight: 600; color: #868e96; }
  }
</style></head><body><article>
<h1>Status report, October</h1>
${body.join('\n')}
</article></body></html>`
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const VALUES = [42, 48, 45, 53, 58, 61, 57, 66, 74, 71, 79, 86]

/** KPI cards over a responsive SVG line chart whose points are <circle> elements. */
export function dashboardPage(): string {
  const w = 1200
  const h = 420
  const x = (i: number) => 60 + (i * (w - 120)) / (MONTHS.length - 1)
  const y = (v: number) => h - 40 - ((v - 30) / 60) * (h - 80)
  const points = VALUES.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
  const circles = VALUES.map(
    (v, i) => `<circle data-month="${MONTHS[i]}" cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="9"><title>${MONTHS[i]}: ${v}k</title></circle>`,
  ).join('\n')
  const labels = MONTHS.map((m, i) => `<text x="${x(i).toFixed(1)}" y="${h - 12}" text-anchor="middle">${m}</text>`).join('')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sales dashboard</title><style>
  body { margin: 0; font: 15px/1.5 system-ui, sans-serif; background: #f1f3f5; color: #212529; }
  header { padding: 20px 24px 4px; } h1 { margin: 0; font-size: 24px; }
  .kpis { display: grid; grid-template-columns: repeat(4, 1fr); gap: 16px; padding: 16px 24px; }
  .kpi { background: #fff; border-radius: 12px; padding: 16px; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
  .kpi b { display: block; font-size: 28px; } .kpi span { color: #868e96; }
  .card { margin: 8px 24px 24px; background: #fff; border-radius: 12px; padding: 16px; }
  svg { width: 100%; height: auto; display: block; }
  polyline { fill: none; stroke: #4263eb; stroke-width: 4; }
  circle { fill: #fff; stroke: #4263eb; stroke-width: 4; }
  text { font-size: 22px; fill: #868e96; }
  @media (max-width: 700px) { .kpis { grid-template-columns: 1fr 1fr; padding: 12px; gap: 10px; } .card { margin: 8px 12px; } }
</style></head><body>
<header><h1>Sales, 2026</h1></header>
<section class="kpis">
  <div class="kpi"><b>€ 740k</b><span>Revenue</span></div>
  <div class="kpi"><b>1,284</b><span>Orders</span></div>
  <div class="kpi"><b>3.1%</b><span>Conversion</span></div>
  <div class="kpi"><b>€ 576</b><span>Average order</span></div>
</section>
<section class="card"><h2>Revenue per month</h2>
<svg viewBox="0 0 ${w} ${h}" role="img" aria-label="Revenue per month">
<polyline points="${points}"/>
${circles}
${labels}
</svg></section>
</body></html>`
}
