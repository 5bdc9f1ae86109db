import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS } from './errors.js'
import { named } from './schemas.js'

const hex = z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'a #RRGGBB colour')
const px = z.string().regex(/^\d+(\.\d+)?px$/, 'a size in px')
const TypeStyle = z.object({ size: px, lineHeight: px, weight: z.number().int().min(100).max(900) })

/** A design system as shipped in templates/design-systems/<id>.json. */
export const DesignSystemFile = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  name: z.string().min(1),
  description: z.string().min(1),
  category: z.enum(['product', 'enterprise', 'editorial', 'government', 'marketing', 'developer']),
  tags: z.array(z.string().regex(/^[a-z0-9-]+$/)).min(1),
  source: z.url(),
  palette: z.strictObject({
    primary: hex,
    onPrimary: hex,
    secondary: hex,
    accent: hex,
    background: hex,
    surface: hex,
    text: hex,
    muted: hex,
    border: hex,
    success: hex,
    warning: hex,
    danger: hex,
  }),
  typography: z.strictObject({
    fontFamily: z.strictObject({ heading: z.string(), body: z.string(), mono: z.string() }),
    scale: z.strictObject({ display: TypeStyle, h1: TypeStyle, h2: TypeStyle, h3: TypeStyle, body: TypeStyle, small: TypeStyle, caption: TypeStyle }),
  }),
  spacing: z.strictObject({ unit: px, scale: z.array(px).min(4) }),
  radius: z.strictObject({ none: px, sm: px, md: px, lg: px, full: px }),
  guidelines: z.string().min(1),
})
export type DesignSystemFile = z.infer<typeof DesignSystemFile>

export const DesignSystem = DesignSystemFile.extend({
  designPreferences: z
    .object({
      theme: z.string(),
      typography: z.string(),
      palette: z.array(hex),
      libraries: z.array(z.string()),
      customColors: z.record(z.string(), hex),
      customGuidelines: z.string(),
    })
    .describe("Ready to use as a folio's designPreferences"),
})
named('DesignSystem', DesignSystem)

export const listDesignSystems = defineContract({
  operationId: 'listDesignSystems',
  method: 'GET',
  path: '/api/design-systems',
  tag: 'Design systems',
  summary: 'The catalogue of design systems a folio can follow',
  access: 'required',
  response: { status: 200, description: 'The catalogue', schema: z.object({ designSystems: z.array(DesignSystem) }) },
  errors: [ERRORS.unauthorized],
})

export const getOpenApi = defineContract({
  operationId: 'getOpenApi',
  method: 'GET',
  path: '/api/openapi',
  tag: 'Meta',
  summary: 'This OpenAPI 3.0 document',
  access: 'public',
  response: { status: 200, description: 'OpenAPI 3.0 document', contentType: 'application/json' },
  errors: [],
})
