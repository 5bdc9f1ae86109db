import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
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

/**
 * Inside src/server and src/store the code is grouped by feature, one folder each (named here by
 * its path under src/). A feature's files import their own folder, the folders listed for it
 * here and, of their layer's root, only the shared files of FEATURE_MAY_IMPORT_FROM_ROOT. The
 * root (server: app.ts, serve.ts …; store: index.ts, assemble-store.ts …) wires the features
 * together and may import any of them. A new folder must be placed in this table before any
 * file may live in it; a layer's name in a list (store/pg: 'store') lets that feature import all
 * of the root.
 */
const FEATURE_MAY_IMPORT: Record<string, string[]> = {
  // The HTTP plumbing: bodies, errors, compression, who is calling from where, outbound requests.
  'server/http': [],
  // How the server sends e-mail, and what it sends to collaborators.
  'server/mail': [],
  // What bounds a client or a workspace: request rates, open streams, key guesses, plan, storage and AI quotas.
  'server/limits': ['server/http'],
  // Who is calling, and which folio they may see.
  'server/auth': ['server/http', 'server/mail'],
  'server/auth/oauth': ['server/auth', 'server/http'],
  // Agents registering, people signing in, workspaces' members (Cloud; OSS answers agent auth).
  'server/accounts': ['server/auth', 'server/limits', 'server/mail', 'server/http'],
  'server/admin': ['server/auth', 'server/limits', 'server/http'],
  'server/files': ['server/auth', 'server/limits', 'server/http'],
  'server/viewer': ['server/auth', 'server/limits', 'server/http'],
  'server/engagement': ['server/auth', 'server/http'],
  'server/ai': ['server/auth', 'server/limits', 'server/http'],
  'server/mcp': ['server/auth/oauth', 'server/viewer', 'server/http'],
  'server/tunnel': ['server/http'],
  // The flat-file engine: the durable driver, its journal and write-back, file I/O.
  'store/engine': [],
  // Locks, shared state and messages between instances.
  'store/coordination': ['store/engine'],
  // A folio's bytes: blobs, versions, history, comment segments.
  'store/content': ['store/coordination', 'store/engine'],
  'store/repositories': ['store/content', 'store/coordination', 'store/engine'],
  // The PostgreSQL store: a second assembly of the root's parts.
  'store/pg': ['store', 'store/coordination', 'store/engine'],
}

/** What every feature may use of its layer's root: the shared pieces, not the wiring. */
const FEATURE_MAY_IMPORT_FROM_ROOT: Record<string, string[]> = {
  server: ['context.ts', 'config.ts', 'route.ts'],
  store: ['store-errors.ts', 'keys.ts', 'readiness.ts'],
}

/** Folders under src/server and src/store stay browsable: past this many files of its own, split by feature. */
const MAX_FILES_PER_FOLDER = 15

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
  const statement =
    /(?:^|\n)\s*(import|export)(\s+type)?\s[^'"()=]*?from\s*'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)|(?:^|\n)\s*import\s*'(\.[^']+\.(?:tsx?|js))'/g
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

/** The feature of src/server or src/store a file belongs to ('server', 'store' for their roots); undefined elsewhere. */
const featureOf = (file: string) => (/^src\/(server|store)\//.test(file) ? dirname(file).slice('src/'.length) : undefined)

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

/** The modules loading `from` loads at once: its static imports, transitively (not import() or types). */
function eagerlyReached(imports: Import[], from: string): Set<string> {
  const eager = graphOf(imports.filter((i) => !i.lazy && !i.typeOnly))
  const reached = new Set<string>()
  const walk = (file: string) => {
    if (reached.has(file)) return
    reached.add(file)
    for (const next of eager.get(file) ?? []) walk(next)
  }
  walk(from)
  return reached
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

  it('the features of server/ and store/ are all placed, and their table has no cycle', () => {
    const folders = [...new Set([...filesUnder('src/server'), ...filesUnder('src/store')].map(featureOf))]
    const roots = Object.keys(FEATURE_MAY_IMPORT_FROM_ROOT)
    expect(folders.filter((f) => f && !roots.includes(f) && !(f in FEATURE_MAY_IMPORT))).toEqual([])
    expect(
      Object.values(FEATURE_MAY_IMPORT)
        .flat()
        .filter((f) => !roots.includes(f) && !(f in FEATURE_MAY_IMPORT)),
    ).toEqual([])
    expect(findCycle(new Map(Object.entries(FEATURE_MAY_IMPORT)))).toBeUndefined()
  })

  it('a feature of server/ or store/ imports only the features listed for it', () => {
    const crossing = imports.flatMap(({ from, to }) => {
      const [a, b] = [featureOf(from), featureOf(to)]
      if (!a || !b || a === b || layerOf(from) !== layerOf(to)) return []
      const layer = layerOf(from)
      if (a === layer) return [] // the root wires the features together
      const allowed = FEATURE_MAY_IMPORT[a] ?? []
      if (b === layer ? allowed.includes(layer) || FEATURE_MAY_IMPORT_FROM_ROOT[layer]!.includes(basename(to)) : allowed.includes(b)) return []
      return [
        `${from} → ${to}: ${a}/ may not import ${b === layer ? `${b}/${basename(to)}` : `${b}/`}. ` +
          'Put what both need where both may import it (a folder lower in FEATURE_MAY_IMPORT, such as server/http/, or the feature that owns it), ' +
          'or, if the dependency belongs, list it in FEATURE_MAY_IMPORT.',
      ]
    })
    expect(crossing).toEqual([])
  })

  it(`no folder of src/server or src/store holds over ${MAX_FILES_PER_FOLDER} files of its own`, () => {
    const counts = new Map<string, number>()
    for (const file of [...filesUnder('src/server'), ...filesUnder('src/store')]) counts.set(dirname(file), (counts.get(dirname(file)) ?? 0) + 1)
    expect([...counts].filter(([, n]) => n > MAX_FILES_PER_FOLDER).map(([dir, n]) => `${dir}: ${n} files`)).toEqual([])
  })

  it('no module imports itself through others, types included', () => {
    expect(findCycle(graphOf(imports))).toBeUndefined()
  })

  it('the CLI entry reaches the server, the TUI and the actions only through import()', () => {
    const reached = eagerlyReached(imports, 'src/cli/index.ts')
    expect(reached.size).toBeGreaterThan(5)
    expect([...reached].filter((f) => LAZY_FROM_CLI_ENTRY.some((dir) => f.startsWith(dir)))).toEqual([])
  })

  it("a feature takes from the server's context only what it names (Pick<ServerContext, …>): the whole of it is app.ts's and serve.ts's", () => {
    const whole = filesUnder('src/server')
      .filter((file) => !['src/server/app.ts', 'src/server/serve.ts', 'src/server/context.ts'].includes(file))
      .filter((file) => /[(,]\s*\w+: (Readonly<)?ServerContext\b(?!\[)/.test(readFileSync(join(root, file), 'utf8')))
    expect(whole).toEqual([])
  })

  it('the server loads the MCP SDK and nodemailer only when a request needs them', () => {
    const reached = eagerlyReached(imports, 'src/server/serve.ts')
    expect(reached.size).toBeGreaterThan(50)
    const heavy = [...reached].filter((file) =>
      /^import (?!type)[^\n]*from '(@modelcontextprotocol\/sdk[^']*|nodemailer)'/m.test(readFileSync(join(root, file), 'utf8')),
    )
    expect(heavy).toEqual([])
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
        if (file !== 'src/server/http/errors.ts' && /new ApiError\(/.test(text)) found.push(`${file}: new ApiError(…) instead of fail(ERRORS.…)`)
        if (file !== 'src/api/errors.ts' && /status:\s*[45]\d\d\s*,\s*error:/.test(text)) found.push(`${file}: an error case declared outside api/errors.ts`)
        return found
      })
    expect(strays).toEqual([])
  })
})
