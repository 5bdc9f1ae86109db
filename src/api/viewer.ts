import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'

/** The pages people open in a browser; described here so the OpenAPI document lists every route. */
export const dashboardPage = defineContract({
  operationId: 'dashboardPage',
  method: 'GET',
  path: '/',
  tag: 'Pages',
  summary: 'The local dashboard: every folio with its share link, views and reactions',
  access: 'public',
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
  query: z.object({ preview: z.string().optional().describe('Owner preview of a draft or private folio (needs the owner credential)') }),
  response: { status: 200, description: 'HTML page (also for unknown, draft and private folios: it says so)', contentType: 'text/html' },
  errors: [],
})

export const rawFile = defineContract({
  operationId: 'rawFile',
  method: 'GET',
  path: '/v/{id}/{access}/{path}',
  tag: 'Pages',
  summary: "A file of the folio's latest version, as the viewer frame loads it",
  description:
    'access is "-" for a published public folio, else a short-lived signed token the share page embeds. path may contain slashes. Sent with a CSP sandbox, nosniff, no-referrer and a strong ETag (the content hash): an unchanged file costs a 304. HTML files get the viewer bridge script.',
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
