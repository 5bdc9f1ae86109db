/**
 * Folio-like HTML made of ordinary lines (tags, classes, prose), deterministic from a seed so
 * every run stores the same bytes. Real line structure matters: folio's deltas anchor on
 * lines, so random bytes or one giant line would measure the wrong thing.
 */

const WORDS =
  'revenue growth quarter market customer design system launch roadmap pipeline budget forecast retention onboarding funnel metric insight strategy pricing segment region partner channel brand content research feedback iteration milestone release analytics dashboard team hiring culture'.split(
    ' ',
  )

function prng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/** Lines of an HTML document of about `bytes` bytes once joined with '\n'. */
export function htmlLines(bytes: number, seed = 1): string[] {
  const rand = prng(seed)
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ')
  const lines = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '  <meta charset="utf-8">',
    '  <title>Quarterly review</title>',
    '  <link rel="stylesheet" href="styles.css">',
    '</head>',
    '<body>',
  ]
  const tail = ['  <script src="deck.js"></script>', '</body>', '</html>']
  let size = [...lines, ...tail].reduce((s, l) => s + l.length + 1, 0)
  let section = 0
  while (size < bytes) {
    const kind = section % 4
    const next =
      kind === 0
        ? `  <section class="slide" id="slide-${section}" data-layout="two-column">`
        : kind === 1
          ? `    <h2 class="slide-title">${sentence(4)}</h2>`
          : kind === 2
            ? `    <p class="body-text">${sentence(8 + Math.floor(rand() * 6))}.</p>`
            : '  </section>'
    lines.push(next)
    size += next.length + 1
    section++
  }
  return [...lines, ...tail]
}

/**
 * A document whose lines change one at a time, as an editor saving small edits would: version
 * i differs from version i-1 in exactly one line, and the page keeps its size (an edit
 * overwrites the start of a heading's or paragraph's text), so a page with a long history
 * costs the same to send and hash as a fresh one.
 */
export class EditableDoc {
  readonly lines: string[]
  /** Indexes of the lines that carry text (headings, paragraphs). */
  readonly #editable: number[]
  readonly #stride: number

  constructor(bytes: number, seed = 1) {
    this.lines = htmlLines(bytes, seed)
    this.#editable = this.lines.flatMap((line, i) => (/^\s*<(h2|p) /.test(line) ? [i] : []))
    const n = this.#editable.length
    // A stride co-prime with n visits every text line once before any repeats.
    let stride = Math.floor(n * 0.618) | 1
    while (gcd(stride, n) !== 1) stride += 2
    this.#stride = stride
  }

  text(): string {
    return this.lines.join('\n')
  }

  /** How many edits touch distinct lines before the walk comes back to the first. */
  get distinctEdits(): number {
    return this.#editable.length
  }

  edit(edit: number): void {
    const at = this.#editable[(edit * this.#stride) % this.#editable.length]!
    const line = this.lines[at]!
    const textStart = line.indexOf('>') + 1
    const label = `Edit ${edit}: `
    this.lines[at] = line.slice(0, textStart) + label + line.slice(textStart + label.length)
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b)
}

/**
 * PUT bodies that differ by a counter in one line, built from two pre-serialised halves so
 * that autocannon's per-request hook stays cheap (no JSON.stringify of 100 KB per request).
 * `tag` keeps two targets from sending the same bytes: blobs are shared by content, and a
 * PUT whose content already exists elsewhere skips the write and the delta.
 */
export function countingPutBody(lines: string[], lineIndex: number, tag: string): () => string {
  const marker = '__BENCH_COUNTER__'
  const edited = [...lines]
  edited[lineIndex] = `    <p class="body-text" data-save="${marker}">Autosaved ${tag} draft ${marker}</p>`
  const json = JSON.stringify({ files: { 'index.html': edited.join('\n') }, commitMessage: 'bench autosave' })
  const parts = json.split(marker)
  let counter = 0
  return () => {
    const n = String(++counter)
    return parts.join(n)
  }
}
