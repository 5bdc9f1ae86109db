import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { FolioIdParams, named } from './schemas.js'

const unauthorized = when(ERRORS.unauthorized, 'FOLIO_API_KEY is set (or the request came through the tunnel) and no valid Bearer key was sent')
const notFound = ERRORS.projectNotFound

/** A file's new content in a sync: text as a string, binary as {base64}, null to delete it. */
export const SyncContent = named(
  'SyncContent',
  z
    .union([z.string(), z.object({ base64: z.string().describe('The bytes, base64-encoded') }), z.null()])
    .describe('Text, {"base64": …} for binary files, or null to delete the file'),
)

export const SyncBody = named(
  'SyncRequest',
  z
    .object({
      files: z.record(z.string(), SyncContent).optional().describe('Batch: path → new content, or null to delete. Paths not named stay as they are'),
      message: z.string().max(500).optional().describe('Commit message of the version (batch)'),
      baseVersionId: z.string().optional().describe('The version the changes were computed against; a different latest version is a 409'),
      filename: z.string().optional().describe('Single file: its path'),
      content: SyncContent.optional().describe('Single file: its content'),
      change_message: z.string().max(500).optional().describe('Single file: commit message'),
    })
    .describe('Either a batch {files, message?, baseVersionId?} or one file {filename, content, change_message?}'),
)

export const SyncResult = named(
  'SyncResult',
  z.object({
    success: z.literal(true),
    versionId: z.string().describe('The new version, or the latest one when nothing changed'),
    changed: z.boolean().describe('False when the files were already as sent: no version was made'),
    files: z.object({ added: z.number().int(), updated: z.number().int(), deleted: z.number().int() }),
  }),
)

export const syncFiles = defineContract({
  operationId: 'syncFiles',
  method: 'POST',
  path: '/api/files/{id}/sync',
  tag: 'Sync',
  summary: 'Push local changes (the watcher endpoint): one version per call when something changed',
  access: 'guarded',
  params: FolioIdParams,
  body: SyncBody,
  response: { status: 200, description: 'What the call did', schema: SyncResult },
  errors: [
    ERRORS.storageExceeded,
    when(ERRORS.invalidBody, 'Neither files nor filename+content, a bad path, or bad base64'),
    unauthorized,
    notFound,
    ERRORS.versionConflict,
    when(ERRORS.folioTooLarge, 'The body is over 20 MB'),
  ],
})

export const SyncManifest = named(
  'SyncManifest',
  z.object({
    versionId: z.string(),
    files: z.record(z.string(), z.object({ sha256: z.string(), size: z.number().int() })).describe('path → hash and size of the bytes'),
  }),
)

export const getSyncManifest = defineContract({
  operationId: 'getSyncManifest',
  method: 'GET',
  path: '/api/files/{id}/sync',
  tag: 'Sync',
  summary: "Content hashes of the latest version's files, so only changed files travel",
  access: 'guarded',
  params: FolioIdParams,
  response: { status: 200, description: 'The latest version, file by file', schema: SyncManifest },
  errors: [unauthorized, notFound],
})
