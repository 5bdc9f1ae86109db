import { createHash } from 'node:crypto'
import { getAsset } from '../../api/assets.js'
import { getFolio } from '../../api/files.js'
import { getSyncManifest } from '../../api/sync.js'
import type { FolioClient } from '../../client/index.js'
import { pointedHash, pointersIn, inlinePointers } from '../../domain/asset-pointers.js'
import { encodeFileContent } from '../../domain/file-content.js'
import { CliError } from '../errors.js'

/** A version of a folio with its files as bytes, as a folder holds them. */
export interface FolioVersionFiles {
  versionId: string
  /** path → bytes. */
  files: Map<string, Buffer>
}

export const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** path → sha256 of each file's bytes. */
export const hashesOf = (files: Map<string, Buffer>) => new Map([...files].map(([path, bytes]) => [path, sha256Of(bytes)]))

/**
 * The files of the latest version (or of `versionId`) as bytes. The files API carries binary
 * files as data URLs; Cloud shows images as asset:// pointers, fetched here, so that what lands
 * in the folder is the file itself, never a pointer.
 */
export async function fetchFolioFiles(client: FolioClient, id: string, versionId?: string): Promise<FolioVersionFiles> {
  const folio = await client.call(getFolio, { params: { id }, query: { files: versionId ? 'all' : 'latest' } })
  const version = versionId ? folio.versions.find((v) => v.versionId === versionId) : folio.versions.at(-1)
  if (!version?.files) {
    const known = folio.versions.map((v) => v.versionId)
    throw new CliError(`Folio ${id} has no version ${versionId} (it has ${known[0]}–${known.at(-1)}; folio versions ${id} lists them).`, 2, 'usage')
  }
  const assets = new Map<string, { bytes: Buffer; type: string }>()
  const asset = async (hash: string) => {
    if (!assets.has(hash)) {
      const response = await client.request(getAsset, { params: { hash } })
      if (!response.ok) throw new CliError(`Could not fetch the image asset://${hash} of folio ${id} (HTTP ${response.status}).`)
      assets.set(hash, {
        bytes: Buffer.from(await response.arrayBuffer()),
        type: response.headers.get('content-type')?.split(';')[0] ?? 'application/octet-stream',
      })
    }
    return assets.get(hash)!
  }
  const files = new Map<string, Buffer>()
  for (const [path, content] of Object.entries(version.files)) {
    const pointed = pointedHash(content)
    if (pointed) {
      files.set(path, (await asset(pointed)).bytes)
      continue
    }
    const hashes = pointersIn(content)
    if (hashes.length === 0) {
      files.set(path, encodeFileContent(content).bytes)
      continue
    }
    const dataUrls = new Map<string, string>()
    for (const hash of hashes) {
      const { bytes, type } = await asset(hash)
      dataUrls.set(hash, `data:${type};base64,${bytes.toString('base64')}`)
    }
    files.set(path, Buffer.from(inlinePointers(content, dataUrls), 'utf8'))
  }
  return { versionId: version.versionId, files }
}

/** The latest version's files as hashes (one small request). */
export async function latestManifest(client: FolioClient, id: string, timeoutMs?: number): Promise<{ versionId: string; files: Map<string, string> }> {
  const manifest = await client.call(getSyncManifest, { params: { id } }, timeoutMs)
  return { versionId: manifest.versionId, files: new Map(Object.entries(manifest.files).map(([path, file]) => [path, file.sha256])) }
}
