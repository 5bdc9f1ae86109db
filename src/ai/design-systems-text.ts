/** What the catalogue (GET /api/design-systems) holds, as far as the prompt needs it. */
export interface CatalogueDesignSystem {
  id: string
  name: string
  description: string
  palette: Record<string, string>
  typography: { fontFamily: Record<string, string> }
  guidelines: string
  designPreferences: { typography: string; customGuidelines: string }
}

/**
 * The design system a generation follows, as text for the system prompt: the request's
 * designSystem (a catalogue id, a catalogue entry, or free-form preferences) over the folio's
 * designPreferences (whose `theme` may name a catalogue entry). Undefined: none chosen.
 */
export function designSystemText(request: unknown, folioPreferences: Record<string, unknown>, catalogue: CatalogueDesignSystem[]): string | undefined {
  const chosen = isObject(request) && Object.keys(request).length ? request : typeof request === 'string' ? { id: request } : folioPreferences
  if (!isObject(chosen) || !Object.keys(chosen).length) return undefined
  const id = [chosen.id, chosen.theme].find((v) => typeof v === 'string') as string | undefined
  const known = id ? catalogue.find((s) => s.id === id) : undefined
  const lines: string[] = []
  if (known) {
    lines.push(
      `${known.name}: ${known.description}`,
      `Palette: ${Object.entries(known.palette)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}.`,
      `Typography: ${known.designPreferences.typography}`,
      `Guidelines: ${known.designPreferences.customGuidelines}`,
    )
  }
  // Whatever else the caller set (custom colours, guidelines, libraries) refines it.
  const rest = Object.fromEntries(
    Object.entries(chosen).filter(
      ([k, v]) =>
        !(known && ['id', 'theme', 'name', 'description', 'palette', 'typography', 'guidelines', 'designPreferences'].includes(k)) &&
        v !== '' &&
        v !== undefined,
    ),
  )
  if (Object.keys(rest).length) lines.push(`${known ? 'Adjustments' : 'Design preferences'}: ${JSON.stringify(rest).slice(0, 16_000)}`)
  return lines.length ? lines.join('\n') : undefined
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
