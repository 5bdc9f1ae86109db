import { bareBase64Image, pointedHash } from '../domain/asset-pointers.js'
import { encodeFileContent, type EncodedContent } from '../domain/file-content.js'
import type { BlobRef, FileMap } from '../domain/model.js'
import { sniffImage } from '../domain/image-sniff.js'
import type { FolioContents } from './folio-contents.js'
import { mapLimit } from './map-limit.js'
import { UnknownAssetError } from './store-errors.js'

export interface AssetResolverDeps {
  contents: FolioContents
  /** The folios of a workspace (the places an asset of that workspace may be held). */
  folioIds: (workspaceId: string) => Promise<string[]>
  /** The latest version's references of a folio, where an asset's MIME type is recorded. */
  headFiles: (folioId: string) => Promise<Record<string, BlobRef> | undefined>
}

/**
 * Cloud mode's incoming file values (spec, Version: images become `asset://` pointers). A
 * client that read a version sends its pointers back when it writes the next one: each is
 * resolved to the content it names, but only when a folio of the same workspace holds that
 * content (a hash is no credential: another workspace's images stay out of reach). An image
 * sent as bare base64 under an image's name is kept as the image it is. Everything else is
 * encoded as in OSS (file-content.ts), so writes cost what they cost there unless they carry
 * pointers.
 */
export class AssetResolver {
  readonly #deps: AssetResolverDeps

  constructor(deps: AssetResolverDeps) {
    this.#deps = deps
  }

  async encode(workspaceId: string, folioId: string | undefined, files: FileMap): Promise<Array<{ path: string } & EncodedContent>> {
    return mapLimit(Object.entries(files), 8, async ([path, content]) => {
      const hash = pointedHash(content)
      if (hash) return { path, ...(await this.#resolve(workspaceId, folioId, path, hash)) }
      return { path, ...(bareBase64Image(path, content) ?? encodeFileContent(content)) }
    })
  }

  async #resolve(workspaceId: string, folioId: string | undefined, path: string, hash: string): Promise<EncodedContent> {
    const holder = await this.#holder(workspaceId, folioId, hash)
    if (holder === undefined) throw new UnknownAssetError(path, hash)
    const bytes = await this.#deps.contents.content(holder, hash)
    const head = await this.#deps.headFiles(holder)
    const recorded = Object.values(head ?? {}).find((ref) => ref.h === hash && ref.m)?.m
    return { bytes, mime: recorded ?? sniffImage(bytes) ?? 'application/octet-stream' }
  }

  /** The folio this write is for first (its whole history), then the workspace's others (their blobs). */
  async #holder(workspaceId: string, folioId: string | undefined, hash: string): Promise<string | undefined> {
    if (folioId !== undefined && (await this.#deps.contents.has(folioId, hash))) return folioId
    for (const id of await this.#deps.folioIds(workspaceId)) {
      if (id !== folioId && (await this.#deps.contents.holdsBlob(id, hash))) return id
    }
    return undefined
  }
}
