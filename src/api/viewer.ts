import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { FolioIdParams, named } from './schemas.js'

/** The pages people open in a browser; described here so the OpenAPI document lists every route. */
export const dashboardPage = defineContract({
  operationId: 'dashboardPage',
  method: 'GET',
  path: '/',
  tag: 'Pages',
  summary: "The local dashboard: every folio with its share link, views, reactions and the owner's actions, and the inbox of every comment",
  access: 'public',
  response: { status: 200, description: 'HTML page', contentType: 'text/html' },
  errors: [],
})

export const folioPage = defineContract({
  operationId: 'folioPage',
  method: 'GET',
  path: '/folios/{id}',
  tag: 'Pages',
  summary: "The dashboard's page of one folio: its settings, versions and every comment",
  description: 'The same page as the dashboard (it reads the id from its address and loads the folio through the API); an unknown id says so on the page.',
  access: 'public',
  params: z.object({ id: z.string() }),
  response: { status: 200, description: 'HTML page', contentType: 'text/html' },
  errors: [],
})

export const sharePage = defineContract({
  operationId: 'sharePage',
  method: 'GET',
  path: '/share/{id}',
  tag: 'Pages',
  summary: 'The page a viewer opens: the folio in a sandboxed frame, pins, reactions, live updates',
  access: 'public',
  params: z.object({ id: z.string() }),
  query: z.object({
    preview: z.string().optional().describe('Owner preview of a draft or private folio (needs the owner credential)'),
    link: z.string().optional().describe("A recipient link's id (POST /api/files/{id}/links): views and time count on it"),
  }),
  response: {
    status: 200,
    description:
      'HTML page (also for unknown and private folios: it says so; a draft is an unknown folio, 404, to anyone but its owner). A revoked, expired or unknown recipient link gets 410 and a page that says so. Fetched by a link-preview bot or a crawler, it counts one botView, never a view.',
    contentType: 'text/html',
  },
  errors: [],
})

export const rawFile = defineContract({
  operationId: 'rawFile',
  method: 'GET',
  path: '/v/{id}/{access}/{path}',
  tag: 'Pages',
  summary: "A file of the folio's latest version, as the viewer frame loads it",
  description:
    'access is "-" for a published public folio, else a frame token: signed, valid for a few minutes, for this folio\'s files only (GET /api/files/{id}/frame renews it). path may contain slashes. Sent with a CSP sandbox, nosniff, no-referrer and a strong ETag (the content hash): an unchanged file costs a 304. HTML files get the viewer bridge script. A page opened with a token past its time gets a small page that asks the share page to reload the frame with a fresh one.',
  access: 'public',
  params: z.object({ id: z.string(), access: z.string(), path: z.string() }),
  response: { status: 200, description: 'The file', contentType: '*/*' },
  errors: [when(ERRORS.notFound, 'No such folio or file, or this viewer may not see it')],
})

export const viewerAsset = defineContract({
  operationId: 'viewerAsset',
  method: 'GET',
  path: '/_folio/{asset}',
  tag: 'Pages',
  summary: 'Scripts and styles of the share page, the bridge and the dashboard',
  access: 'public',
  params: z.object({ asset: z.string() }),
  response: { status: 200, description: 'The asset', contentType: '*/*' },
  errors: [when(ERRORS.notFound, 'No such asset')],
})

export const FrameAccess = named(
  'FrameAccess',
  z.object({
    frameBase: z.string().describe("/v/{id}/{access}/: where the frame loads the folio's files"),
    expiresAt: z.number().nullable().describe('When its token runs out (ms since the epoch); null for a published public folio ("-")'),
  }),
)

export const renewFrame = defineContract({
  operationId: 'renewFrame',
  method: 'GET',
  path: '/api/files/{id}/frame',
  tag: 'Sharing',
  summary: 'A fresh frame base for an open share page (its token lasts a few minutes)',
  description:
    'For whoever may view the folio: the access cookie, the owner, or anyone for a published public folio. The token is for the frame only: it is no access cookie and opens no API.',
  access: 'public',
  rateLimit: 'public',
  params: FolioIdParams,
  response: { status: 200, description: 'The frame base and when it runs out', schema: FrameAccess },
  errors: [
    when(ERRORS.projectNotFound, 'No folio has this id, or it is a draft and the caller is not its owner'),
    ERRORS.accessKeyRequired,
    ERRORS.tooManyRequests,
  ],
})
