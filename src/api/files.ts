import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import {
  AccessKey,
  Collaborators,
  Comment,
  CommentModeration,
  CommitMessage,
  Description,
  DesignPreferences,
  FileMap,
  Folio,
  FolioIdParams,
  FolioListItem,
  FolioStatus,
  named,
  ProjectMode,
  ReferenceFiles,
  Title,
} from './schemas.js'

const WriteResult = z.object({ success: z.literal(true), project: Folio })
named('FolioWriteResult', WriteResult)

export const listFolios = defineContract({
  operationId: 'listFolios',
  method: 'GET',
  path: '/api/files',
  tag: 'Folios',
  summary: 'List folios, most recently updated first',
  description:
    'Each item is a Folio whose versions leave out their file contents (versionId, commitMessage, createdAt, author); GET /api/files/{id} has the files. The answer carries a strong ETag (none when a very large list is streamed): sent back as If-None-Match, it gets 304 with no body until a folio of the workspace changes (its metadata, versions, files, comments, reactions or analytics).',
  access: 'required',
  headers: { 'If-None-Match': 'The ETag of a list this client holds: 304 Not Modified, no body, while the list is unchanged' },
  response: {
    status: 200,
    description: 'The folios of the workspace',
    schema: z.array(FolioListItem),
    headers: { 'Cache-Control': 'public, max-age=5, stale-while-revalidate=60', ETag: '"zK5ehHObmrOc-XMrOWDCSsIxPw8"' },
  },
  errors: [ERRORS.unauthorized],
})

export const CreateFolioBody = z.object({
  title: Title,
  initialHtml: z.string().optional().describe('A full HTML document, stored as index.html'),
  defaultFiles: FileMap.optional().describe('Map of filename to content (instead of initialHtml)'),
  description: Description.optional().describe(
    "Default: 'A multi-page HTML folio.' for several HTML pages, 'A single-page HTML folio.' for one, 'An HTML folio.' for none",
  ),
  projectMode: ProjectMode.optional().describe('Default deck'),
  isPrivate: z.boolean().optional().describe('OSS: always false on create'),
  accessKey: AccessKey.optional(),
  allowComments: z.boolean().optional().describe('Default true'),
  presentationModeOnly: z.boolean().optional().describe('Default false'),
  commentModeration: CommentModeration.optional(),
  status: FolioStatus.optional().describe('Default draft'),
  designPreferences: DesignPreferences.optional(),
  referenceFiles: ReferenceFiles.optional(),
  collaborators: Collaborators.optional().describe('Cloud only; a new folio starts with none (spec), add them with PUT'),
  commitMessage: CommitMessage.optional().describe('Message of the first version'),
})
named('CreateFolioRequest', CreateFolioBody)

export const createFolio = defineContract({
  operationId: 'createFolio',
  method: 'POST',
  path: '/api/files',
  tag: 'Folios',
  summary: 'Create a folio with its first version',
  description: 'Files come from initialHtml (stored as index.html) or defaultFiles; with neither, the folio starts from the starter page of its projectMode.',
  access: 'required',
  body: CreateFolioBody,
  response: { status: 201, description: 'The new folio', schema: WriteResult },
  errors: [ERRORS.storageExceeded, ERRORS.titleRequired, ERRORS.invalidJson, ERRORS.invalidBody, ERRORS.unauthorized, ERRORS.folioTooLarge],
})

export const GetFolioQuery = z.object({
  files: z
    .enum(['all', 'latest', 'none'])
    .default('all')
    .describe('Which versions carry their file contents: all (default), only the latest, or none (versions then list fileList)'),
})

export const getFolio = defineContract({
  operationId: 'getFolio',
  method: 'GET',
  path: '/api/files/{id}',
  tag: 'Folios',
  summary: 'Get a folio with its versions, files, comments and analytics',
  access: 'required',
  params: FolioIdParams,
  query: GetFolioQuery,
  response: { status: 200, description: 'The whole folio', schema: Folio },
  errors: [when(ERRORS.invalidQuery, 'files is not all, latest or none'), ERRORS.unauthorized, ERRORS.projectNotFoundFullStop],
})

export const UpdateFolioQuery = z.object({
  files: z
    .enum(['all', 'latest', 'none'])
    .default('latest')
    .describe(
      'Whether the answer carries the file contents of the version it holds (only the latest: all and latest are the same here). Default latest, as the spec has it; none lists fileList instead, so an answer never echoes the files it just received',
    ),
})

export const UpdateFolioBody = z.object({
  files: FileMap.optional().describe('The complete file set of a new version; its presence creates the version'),
  updated_files: FileMap.optional().describe('Alias of files'),
  commitMessage: CommitMessage.optional(),
  change_message: CommitMessage.optional().describe('Alias of commitMessage'),
  title: Title.optional(),
  description: Description.optional(),
  isPrivate: z.boolean().optional(),
  accessKey: AccessKey.optional(),
  allowComments: z.boolean().optional(),
  presentationModeOnly: z.boolean().optional(),
  commentModeration: CommentModeration.optional(),
  notifyViews: z
    .boolean()
    .optional()
    .describe(
      "Extension: each view's summary (\"Dana at Acme read 9 of 12 slides in 4 min\") goes to the workspace's chat integrations and the owners' e-mail (Cloud). Default false",
    ),
  projectMode: ProjectMode.optional(),
  designPreferences: DesignPreferences.optional(),
  status: FolioStatus.optional(),
  collaborators: Collaborators.optional(),
  restoreVersionId: z.string().optional().describe('Restores that version as a new version'),
  reactions: z.record(z.string(), z.unknown()).optional().describe('Sets reaction counts (same rules as the reactions endpoint)'),
  publicTunnelEnabled: z.boolean().optional(),
  referenceFiles: ReferenceFiles.optional(),
  _gz: z.boolean().optional().describe('True when _d holds the request gzip-compressed'),
  _d: z.string().optional().describe('Base64 of the gzip-compressed JSON request object'),
})
named('UpdateFolioRequest', UpdateFolioBody)

export const updateFolio = defineContract({
  operationId: 'updateFolio',
  method: 'PUT',
  path: '/api/files/{id}',
  tag: 'Folios',
  summary: 'Update metadata, add a version, or restore one',
  description:
    'Every field is optional. `files` (or `updated_files`) adds a version holding exactly those files; `restoreVersionId` adds a version that copies an old one. Bodies over about 1 MB are best sent as {"_gz": true, "_d": base64(gzip(JSON))}. Concurrent writes to one folio are committed together, in the order they arrived, each its own version; each is answered once it is durable. `?files=none` keeps the file contents out of the answer (the client sent them).',
  access: 'required',
  params: FolioIdParams,
  query: UpdateFolioQuery,
  body: UpdateFolioBody,
  response: { status: 200, description: 'The updated folio: its latest version only, with its files unless ?files=none', schema: WriteResult },
  errors: [
    ERRORS.storageExceeded,
    when(ERRORS.invalidQuery, 'files is not all, latest or none'),
    when(ERRORS.titleRequired, 'title is sent blank'),
    ERRORS.invalidJson,
    ERRORS.invalidBody,
    ERRORS.versionNotFound,
    ERRORS.unauthorized,
    ERRORS.projectNotFound,
    ERRORS.folioTooLarge,
  ],
})

export const deleteFolio = defineContract({
  operationId: 'deleteFolio',
  method: 'DELETE',
  path: '/api/files/{id}',
  tag: 'Folios',
  summary: 'Delete a folio with its versions, comments and engagement',
  access: 'required',
  params: FolioIdParams,
  response: { status: 200, description: 'Deleted', schema: z.object({ success: z.literal(true) }) },
  errors: [ERRORS.unauthorized, ERRORS.projectNotFound],
})

export const BriefResponse = z.object({
  title: z.string(),
  description: z.string(),
  brief: z.string().describe('Markdown design brief: open feedback pins (in page order) and the file structure'),
  openComments: z
    .array(Comment)
    .describe(
      'Open comments (not resolved, not deleted; replies of open threads included), in the order the brief lists them: on the page of the latest version, outdated, then left on earlier versions. As many as the owner’s open count',
    ),
})
named('Brief', BriefResponse)

export const getBrief = defineContract({
  operationId: 'getBrief',
  method: 'GET',
  path: '/api/files/{id}/brief',
  tag: 'Folios',
  summary: 'A markdown design brief from open feedback and file structure',
  access: 'required',
  params: FolioIdParams,
  response: { status: 200, description: 'The brief', schema: BriefResponse },
  errors: [ERRORS.unauthorized, ERRORS.projectNotFound],
})
