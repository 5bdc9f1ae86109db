import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS } from './errors.js'

const { unauthorized, forbidden } = ERRORS
const KeyResult = z.object({ apiKey: z.string().describe('folio_live_ + 48 hex characters') })

export const getKey = defineContract({
  operationId: 'getKey',
  method: 'GET',
  path: '/api/keys',
  tag: 'Keys',
  summary: "The workspace's API key",
  description: 'Open to programs on this machine in OSS, unless FOLIO_API_KEY is set: then, like everywhere else, it needs that key.',
  access: 'guarded',
  response: { status: 200, description: 'The current key', schema: KeyResult },
  errors: [unauthorized, ERRORS.noApiKey],
})

export const rotateKey = defineContract({
  operationId: 'rotateKey',
  method: 'POST',
  path: '/api/keys',
  tag: 'Keys',
  summary: 'Make a new key; the previous one stops working at once',
  access: 'required',
  response: { status: 200, description: 'The new key', schema: KeyResult },
  errors: [unauthorized, forbidden, ERRORS.keyFromEnvironment],
})

export const revokeKey = defineContract({
  operationId: 'revokeKey',
  method: 'DELETE',
  path: '/api/keys',
  tag: 'Keys',
  summary: 'Revoke the key; none works until a new one is made',
  access: 'required',
  response: { status: 200, description: 'Revoked', schema: z.object({ success: z.literal(true) }) },
  errors: [unauthorized, forbidden, ERRORS.keyFromEnvironment],
})
