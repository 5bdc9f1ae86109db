import { z } from 'zod'
import { defineContract } from './contract.js'
import { FolioIdParams } from './schemas.js'

const formats = 'PNG, JPEG, GIF, WebP, ICO, BMP or SVG, recognised by their bytes'
const notFound = { status: 404, error: 'Not found', when: 'No folio has this id' }
const unauthorized = { status: 401, error: 'Unauthorized', when: 'Missing or invalid credential' }
const badPath = { status: 400, error: 'Invalid file path', when: 'A path is empty, absolute, contains .., a backslash or NUL' }

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
    { status: 400, error: 'Missing x-file-path header', when: 'No x-file-path header' },
    badPath,
    { status: 400, error: 'Unsupported file type', when: `The bytes are not ${formats}` },
    { status: 400, error: 'Content-Type must be application/octet-stream', when: 'Another content type was sent' },
    unauthorized,
    notFound,
    { status: 413, error: 'FILE_TOO_LARGE', when: 'The body is over 25 MB' },
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
    schema: z.object({ success: z.literal(true), count: z.number().int(), paths: z.array(z.string()), skipped: z.array(z.string()).describe('Parts that are not images') }),
  },
  errors: [
    { status: 400, error: 'No image files in form data', when: 'No part is a valid image' },
    badPath,
    { status: 400, error: 'Content-Type must be multipart/form-data', when: 'Another content type was sent' },
    unauthorized,
    notFound,
    { status: 413, error: 'FILE_TOO_LARGE', when: 'A file is over 25 MB' },
  ],
})
