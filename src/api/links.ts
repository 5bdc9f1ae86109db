import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { FolioIdParams, named } from './schemas.js'

/** Recipient links: one URL per person a folio is sent to, each with its own figures (domain/recipient-links.ts). */

const PartFigures = z.array(
  z.object({
    slide: z.number().int().optional(),
    section: z.number().int().optional(),
    title: z.string().optional(),
    views: z.number(),
    totalTimeSeconds: z.number(),
  }),
)

export const RecipientLink = named(
  'RecipientLink',
  z.object({
    id: z.string(),
    name: z.string().describe('Who the link is for, as the author named it'),
    status: z.enum(['active', 'expired', 'revoked']),
    url: z.string().describe('The share page with ?link=<id>: what to send this recipient'),
    createdAt: z.string(),
    expiresAt: z.string().optional(),
    maxViews: z.number().int().optional().describe('The link opens for this many views, then shows that it expired'),
    revokedAt: z.string().optional(),
    lastViewAt: z.string().optional(),
    views: z.number(),
    totalTimeSeconds: z.number(),
    comments: z.number().describe('Comments made through it'),
    slides: PartFigures.optional(),
    sections: PartFigures.optional(),
  }),
)

export const LinkBody = named(
  'NewRecipientLink',
  z.object({
    name: z.string().trim().min(1).max(100).describe('Who it is for'),
    // A plain string with a check, not z.iso.datetime(): its regex would be in every MCP tools/list.
    expiresAt: z
      .string()
      .refine((value) => /^\d{4}-\d\d-\d\dT/.test(value) && Date.parse(value) > Date.now(), 'expiresAt is not an ISO date-time in the future')
      .optional()
      .describe('When it stops (ISO date-time)'),
    maxViews: z.number().int().min(1).optional().describe('Views it opens for'),
  }),
)

const LinkParams = FolioIdParams.extend({ linkId: z.string() })

export const listLinks = defineContract({
  operationId: 'listLinks',
  method: 'GET',
  path: '/api/files/{id}/links',
  tag: 'Analytics',
  summary: "A folio's recipient links, with each one's views and time",
  access: 'required',
  params: FolioIdParams,
  response: { status: 200, description: 'Oldest first', schema: z.object({ links: z.array(RecipientLink) }) },
  errors: [ERRORS.unauthorized, ERRORS.projectNotFound],
})

export const createLink = defineContract({
  operationId: 'createLink',
  method: 'POST',
  path: '/api/files/{id}/links',
  tag: 'Analytics',
  summary: 'A link for one recipient',
  description:
    "Views, time per slide and comments made through it are counted on it. It opens the folio as its main link does (a private folio still asks for its access key) until it expires (expiresAt, maxViews) or is revoked; then it shows a page that says so and counts nothing. The folio's main link is not affected.",
  access: 'required',
  params: FolioIdParams,
  body: LinkBody,
  response: { status: 201, description: 'The new link', schema: z.object({ link: RecipientLink }) },
  errors: [
    when(ERRORS.invalidBody, 'name is blank or over 100 characters, expiresAt is not a date-time in the future, or maxViews is not a positive integer'),
    ERRORS.invalidJson,
    ERRORS.unauthorized,
    ERRORS.projectNotFound,
    ERRORS.tooManyLinks,
  ],
})

export const revokeLink = defineContract({
  operationId: 'revokeLink',
  method: 'DELETE',
  path: '/api/files/{id}/links/{linkId}',
  tag: 'Analytics',
  summary: 'Revoke one recipient link (its figures stay)',
  access: 'required',
  params: LinkParams,
  response: { status: 200, description: 'The link, revoked', schema: z.object({ link: RecipientLink }) },
  errors: [ERRORS.unauthorized, ERRORS.projectNotFound, ERRORS.linkNotFound],
})
