import { z } from 'zod'
import { defineContract } from './contract.js'

const unauthorized = { status: 401, error: 'Unauthorized', when: 'Missing or invalid credential' }
const forbidden = { status: 403, error: 'Forbidden', when: 'The caller is not the Owner or an Admin' }
const KeyResult = z.object({ apiKey: z.string().describe('folio_live_ + 48 hex characters') })

export const getKey = defineContract({
  operationId: 'getKey',
  method: 'GET',
  path: '/api/keys',
  tag: 'Keys',
  summary: "The workspace's API key",
  access: 'required',
  response: { status: 200, description: 'The current key', schema: KeyResult },
  errors: [unauthorized, { status: 404, error: 'No API key', when: 'No key is active: create one with POST /api/keys' }],
})

export const rotateKey = defineContract({
  operationId: 'rotateKey',
  method: 'POST',
  path: '/api/keys',
  tag: 'Keys',
  summary: 'Make a new key; the previous one stops working at once',
  access: 'required',
  response: { status: 200, description: 'The new key', schema: KeyResult },
  errors: [unauthorized, forbidden, { status: 409, error: 'KEY_FROM_ENVIRONMENT', when: 'The key comes from FOLIO_API_KEY: change the environment instead' }],
})

export const revokeKey = defineContract({
  operationId: 'revokeKey',
  method: 'DELETE',
  path: '/api/keys',
  tag: 'Keys',
  summary: 'Revoke the key; none works until a new one is made',
  access: 'required',
  response: { status: 200, description: 'Revoked', schema: z.object({ success: z.literal(true) }) },
  errors: [unauthorized, forbidden, { status: 409, error: 'KEY_FROM_ENVIRONMENT', when: 'The key comes from FOLIO_API_KEY: change the environment instead' }],
})
