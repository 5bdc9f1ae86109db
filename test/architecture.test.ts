import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The layering ARCHITECTURE.md describes, checked on the source: which folder of src/ may import
 * which. A folder imports its own files and the folders listed here, nothing else: a new folder
 * must be placed in this table before anything may import it. Files directly in src/
 * (version.ts) import nothing of ours and anyone may import them.
 */
const MAY_IMPORT: Record<string, string[]> = {
  domain: [],
  api: ['domain'],
  store: ['domain'],
  tunnel: ['domain'],
  terminal: [],
  log: [],
  client: ['api', 'domain'],
  tui: ['client', 'api', 'domain', 'terminal'],
  ai: ['domain'],
  server: ['store', 'api', 'domain', 'tunnel', 'log', 'ai'],
  cli: ['server', 'tui', 'client', 'api', 'domain', 'terminal', 'log', 'tunnel'],
  // The browser's side (bundled by tsup for the share page, dashboard and frame): pure rules only.
  web: ['domain'],
}

/** What `folio --help` loads must stay light: these are reached from the CLI's entry only through import(). */
const LAZY_FROM_CLI_ENTRY = ['src/server/', 'src/tui/', 'src/cli/actions/']

/** Files with one job stay readable: past this, split by job. */
const MAX_LINES = 400

const root = resolve(import.meta.dirname, '..')
const filesUnder = (dir: string) =>
  readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))

interface Import {
  from: string
  to: string
  /** `import type`: erased from the JavaScript, so it costs nothing at run time */
  typeOnly: boolean
  /** `import()`: loaded when the code runs, not with the module */
  lazy: boolean
}

/** Relative imports of every TypeScript file in src/ and every script of src/web/, resolved to the files they name. */
function scanImports(): Import[] {
  const imports: Import[] = []
  const statement = /(?:^|\n)\s*(import|export)(\s+type)?\s[^'"()=]*?from\s*'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)|(?:^|\n)\s*import\s*'(\.[^']+\.(?:tsx?|js))'/g
  for (const from of filesUnder('src').filter((f) => (/\.tsx?$/.test(f) && !f.endsWith('.d.ts')) || /^src\/web\/.*\.js$/.test(f))) {
    for (const m of readFileSync(join(root, from), 'utf8').matchAll(statement)) {
      const spec = m[3] ?? m[4] ?? m[5]!
      imports.push({ from, to: resolveModule(from, spec), typeOnly: Boolean(m[2]), lazy: m[4] !== undefined })
    }
  }
  return imports
}

function resolveModule(from: string, spec: string): string {
  const named = join(dirname(from), spec)
  const base = named.replace(/\.js$/, '')
  // TypeScript names its imports .js; the browser's scripts name the file as it is (.js, or .ts for a rule of domain/).
  const found = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), named].find((f) => /\.(tsx?|js)$/.test(f) && existsSync(join(root, f)))
  if (!found) throw new Error(`${from} imports ${spec}, which is not a file in src/`)
  return found
}

/** The folder of src/ a file belongs to; '' for files directly in src/. */
const layerOf = (file: string) => {
  const parts = file.split('/')
  return parts.length > 2 ? parts[1]! : ''
}

/** The first cycle found in a graph, as the path that closes it, or undefined. */
function findCycle(edges: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node]
    state.set(node, 'open')
    path.push(node)
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next)
      if (cycle) return cycle
    }
    path.pop()
    state.set(node, 'done')
    return undefined
  }
  for (const node of edges.keys()) {
    const cycle = visit(node)
    if (cycle) return cycle
  }
  return undefined
}

const graphOf = (imports: Import[]) => {
  const edges = new Map<string, string[]>()
  for (const i of imports) edges.set(i.from, [...(edges.get(i.from) ?? []), i.to])
  return edges
}

describe('architecture', () => {
  const imports = scanImports()

  it('finds the imports it checks', () => {
    // A scanner that matched nothing would pass every rule below.
    expect(imports.length).toBeGreaterThan(300)
    expect(imports).toContainEqual({ from: 'src/cli/commands/serve.ts', to: 'src/cli/actions/serve.ts', typeOnly: false, lazy: true })
    expect(imports).toContainEqual({ from: 'src/server/context.ts', to: 'src/store/index.ts', typeOnly: true, lazy: false })
  })

  it('the layering itself has no cycle', () => {
    expect(findCycle(new Map(Object.entries(MAY_IMPORT)))).toBeUndefined()
  })

  it('every import points down the layering', () => {
    const upward = imports
      .filter(({ from, to }) => {
        const [a, b] = [layerOf(from), layerOf(to)]
        return b !== '' && a !== b && !(MAY_IMPORT[a] ?? []).includes(b)
      })
      .map(({ from, to }) => `${from} → ${to}`)
    expect(upward).toEqual([])
  })

  it('no module imports itself through others, types included', () => {
    expect(findCycle(graphOf(imports))).toBeUndefined()
  })

  it('the CLI entry reaches the server, the TUI and the actions only through import()', () => {
    const eager = graphOf(imports.filter((i) => !i.lazy && !i.typeOnly))
    const reached = new Set<string>()
    const walk = (file: string) => {
      if (reached.has(file)) return
      reached.add(file)
      for (const next of eager.get(file) ?? []) walk(next)
    }
    walk('src/cli/index.ts')
    expect(reached.size).toBeGreaterThan(5)
    expect([...reached].filter((f) => LAZY_FROM_CLI_ENTRY.some((dir) => f.startsWith(dir)))).toEqual([])
  })

  it(`no file in src/ or templates/ is over ${MAX_LINES} lines`, () => {
    const long = [...filesUnder('src'), ...filesUnder('templates')]
      .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
    expect(long).toEqual([])
  })

  it('declares every API error once, in api/errors.ts, and throws them only through fail()', async () => {
    const { ERRORS } = await import('../src/api/errors.js')
    const declared = Object.values(ERRORS).map((e) => `${e.status} ${e.error}`)
    expect(declared.filter((e, i) => declared.indexOf(e) !== i)).toEqual([])
    const strays = filesUnder('src')
      .filter((f) => /\.tsx?$/.test(f))
      .flatMap((file) => {
        const text = readFileSync(join(root, file), 'utf8')
        const found: string[] = []
        if (file !== 'src/server/errors.ts' && /new ApiError\(/.test(text)) found.push(`${file}: new ApiError(…) instead of fail(ERRORS.…)`)
        if (file !== 'src/api/errors.ts' && /status:\s*[45]\d\d\s*,\s*error:/.test(text)) found.push(`${file}: an error case declared outside api/errors.ts`)
        return found
      })
    expect(strays).toEqual([])
  })
})
