import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { DesignSystemFile } from '../../api/design-systems.js'
import { escapeHtml } from '../../domain/html.js'
import type { ProjectMode } from '../../domain/model.js'
import { embeddedFile, embeddedNames, isSingleExecutable } from '../../package-files.js'

/** The templates/ folder ships beside dist/ and src/: walk up from this module to find it. */
export function findTemplatesDir(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'templates')
    if (existsSync(join(candidate, 'starters'))) return candidate
    if (dirname(dir) === dir) throw new Error('The templates folder of the folio package is missing; reinstall folio.')
  }
}

export type DesignSystem = DesignSystemFile & { designPreferences: ReturnType<typeof toDesignPreferences> }

/** A design system expressed in the shape a folio's designPreferences takes. */
export function toDesignPreferences(system: DesignSystemFile) {
  const p = system.palette
  const t = system.typography
  return {
    theme: system.id,
    typography: `Headings ${t.fontFamily.heading}; body ${t.fontFamily.body}; code ${t.fontFamily.mono}. Scale: ${Object.entries(t.scale)
      .map(([name, s]) => `${name} ${s.size}/${s.lineHeight} ${s.weight}`)
      .join(', ')}.`,
    palette: [p.primary, p.secondary, p.accent, p.background, p.surface, p.text],
    libraries: [] as string[],
    customColors: { ...p },
    customGuidelines: `${system.guidelines} Spacing steps of ${system.spacing.unit} (${system.spacing.scale.join(', ')}); corner radius ${system.radius.sm} small, ${system.radius.md} medium, ${system.radius.lg} large.`,
  }
}

/** Where the templates are read: a folder, or the single executable's embedded templates/. */
interface TemplateSource {
  read(path: string): Promise<string>
  list(folder: string): Promise<string[]>
}

const fromFolder = (dir: string): TemplateSource => ({
  read: (path) => readFile(join(dir, path), 'utf8'),
  list: (folder) => readdir(join(dir, folder)),
})

const embeddedTemplates: TemplateSource = {
  async read(path) {
    const bytes = embeddedFile(`templates/${path}`)
    if (!bytes) throw new Error(`This folio executable has no templates/${path}: build it again with npm run build:binary.`)
    return bytes.toString('utf8')
  },
  list: async (folder) => embeddedNames(`templates/${folder}`),
}

/** Starter pages and the design-system catalogue, read once and kept. */
export function createTemplates(dir?: string) {
  const source = dir === undefined && isSingleExecutable() ? embeddedTemplates : fromFolder(dir ?? findTemplatesDir())
  const starters = new Map<ProjectMode, string>()
  let systems: Promise<DesignSystem[]> | undefined

  return {
    async starter(mode: ProjectMode, title: string): Promise<string> {
      let html = starters.get(mode)
      if (!html) {
        html = await source.read(`starters/${mode}.html`)
        starters.set(mode, html)
      }
      return html.replaceAll('{{title}}', escapeHtml(title))
    },
    designSystems(): Promise<DesignSystem[]> {
      systems ??= (async () => {
        const names = (await source.list('design-systems')).filter((n) => n.endsWith('.json')).sort()
        return Promise.all(
          names.map(async (name) => {
            const parsed = DesignSystemFile.safeParse(JSON.parse(await source.read(`design-systems/${name}`)))
            if (!parsed.success) throw new Error(`templates/design-systems/${name} is invalid: ${z.prettifyError(parsed.error)}`)
            return { ...parsed.data, designPreferences: toDesignPreferences(parsed.data) }
          }),
        )
      })()
      return systems
    },
  }
}

export type Templates = ReturnType<typeof createTemplates>
