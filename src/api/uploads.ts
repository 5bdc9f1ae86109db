import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { FolioIdParams } from './schemas.js'

const formats = 'PNG, JPEG, GIF, WebP, ICO, BMP or SVG, recognised by their bytes'
/** The spec answers an upload into an unknown folio with "Not found". */
const notFound = when(ERRORS.notFound, 'No folio has this id')

export const uploadFile = defineContract({
  operationId: 'uploadFile',
  method: 'POST',
  path: '/api/files/{id}/upload',
  tag: 'Uploads',
  summary: 'Upload one image into the latest version',
  description: `Raw bytes; x-file-path names the target path. Writes into the latest version without creating one. Accepted: ${formats}. 25 MB at most, enforced while streaming.`,
  access: 'required',
  params: FolioIdParams,
  rawBody: {
    contentType: 'application/octet-stream',
    description: 'The image bytes',
    headers: { 'x-file-path': 'Target path in the folio, e.g. img/logo.png' },
  },
  response: { status: 200, description: 'Stored', schema: z.object({ success: z.literal(true), path: z.string() }) },
  errors: [
    ERRORS.storageExceeded,
    ERRORS.missingFilePath,
    ERRORS.invalidFilePath,
    when(ERRORS.unsupportedFileType, `The bytes are not ${formats}`),
    ERRORS.octetStreamRequired,
    ERRORS.unauthorized,
    notFound,
    ERRORS.fileTooLarge,
  ],
})

export const uploadBatch = defineContract({
  operationId: 'uploadBatch',
  method: 'POST',
  path: '/api/files/{id}/upload-batch',
  tag: 'Uploads',
  summary: 'Upload several images into the latest version at once',
  description: `multipart/form-data; each file part's filename is its path in the folio. Parts that are not ${formats} are skipped and listed; the rest are merged into the latest version in one write (no new version). Streamed; 25 MB per file.`,
  access: 'required',
  params: FolioIdParams,
  rawBody: { contentType: 'multipart/form-data', description: 'File parts' },
  response: {
    status: 200,
    description: 'Stored',
    schema: z.object({
      success: z.literal(true),
      count: z.number().int(),
      paths: z.array(z.string()),
      skipped: z.array(z.string()).describe('Parts that are not images'),
    }),
  },
  errors: [
    ERRORS.storageExceeded,
    ERRORS.noImageFiles,
    ERRORS.invalidFilePath,
    ERRORS.multipartRequired,
    ERRORS.unauthorized,
    notFound,
    when(ERRORS.fileTooLarge, 'A file is over 25 MB'),
  ],
})
