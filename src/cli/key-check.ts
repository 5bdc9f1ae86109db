import { ERRORS } from '../api/errors.js'
import { listFolios } from '../api/files.js'
import { getKey } from '../api/keys.js'
import { getTunnel } from '../api/tunnel.js'
import { ApiClientError, type FolioClient } from '../client/index.js'

/**
 * What the server makes of the key a command sends:
 * - accepted: the key gets in;
 * - refused: the server turned it down (why says how);
 * - open: no key sent, and none needed from here (OSS, a program on the server's machine);
 * - needed: no key sent, and the server wants one.
 */
export type KeyVerdict = { state: 'accepted' } | { state: 'refused'; why: string } | { state: 'open' } | { state: 'needed' }

/**
 * A key is checked where only the right key gets in: GET /api/keys answers the server's current
 * key to its holder. A server that is open without a key (OSS) cannot tell a wrong key from a
 * right one anywhere else, so the answer is compared too. Without a key: may we list folios?
 * Errors other than these verdicts (the server is away) are thrown.
 */
export async function checkKey(client: FolioClient, key: string | undefined): Promise<KeyVerdict> {
  try {
    if (!key) {
      await client.call(listFolios)
      return { state: 'open' }
    }
    const { apiKey } = await client.call(getKey)
    return apiKey === key ? { state: 'accepted' } : { state: 'refused', why: "it is not the server's current key" }
  } catch (error) {
    if (!(error instanceof ApiClientError)) throw error
    if (error.status === 401) return key ? { state: 'refused', why: "it is not the server's current key (rotated or revoked?)" } : { state: 'needed' }
    if (key && error.status === ERRORS.noApiKey.status && error.error === ERRORS.noApiKey.error) {
      return { state: 'refused', why: 'the server has no API key at all (make one there with folio keys rotate)' }
    }
    // Forbidden: the key got in, only its role may not read keys. That is a working key.
    if (key && error.status === 403) return { state: 'accepted' }
    throw error
  }
}

/** OSS or Cloud: only an OSS server has the tunnel endpoint, and a Cloud one says so before asking for a key. */
export async function serverMode(client: FolioClient): Promise<'oss' | 'cloud'> {
  try {
    await client.call(getTunnel)
    return 'oss'
  } catch (error) {
    if (error instanceof ApiClientError && error.status === 403 && error.error === ERRORS.tunnelOssOnly.error) return 'cloud'
    if (error instanceof ApiClientError && error.status === 401) return 'oss' // the tunnel is there, the key is not
    throw error
  }
}
