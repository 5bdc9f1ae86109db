import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'

export const getAsset = defineContract({
  operationId: 'getAsset',
  method: 'GET',
  path: '/api/assets/{hash}',
  tag: 'Files',
  summary: 'The image an asset:// pointer names (Cloud)',
  description:
    "Cloud shows images in a version's files, and images embedded in its pages as data URLs, as asset://<sha256> pointers (spec, Version). This answers the bytes of asset://{hash}, when a folio of the caller's workspace holds that image; viewers need none of it (the raw route serves files and pages with their images). Immutable: the hash is the content.",
  access: 'required',
  onlyIn: { mode: 'cloud', error: ERRORS.cloudOnly },
  params: z.object({ hash: z.string().describe('The 64 hex characters after asset://') }),
  response: { status: 200, description: 'The image, with its type', contentType: 'image/*' },
  errors: [ERRORS.unauthorized, ERRORS.cloudOnly, when(ERRORS.notFound, 'No folio of this workspace holds that image')],
})
