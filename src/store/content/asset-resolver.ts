import { bareBase64Image, embeddedImages, pointedHash, pointersIn, withPointers } from '../../domain/asset-pointers.js'
import { encodeFileContent, type EncodedContent } from '../../domain/file-content.js'
import type { FileMap, VersionManifest } from '../../domain/model.js'
import { sniffImage } from '../../domain/image-sniff.js'
import { hashBytes } from './blob-store.js'
import type { FolioContents, IncomingFile } from './folio-contents.js'
import { mapLimit } from '../engine/map-limit.js'
import { UnknownAssetError } from '../store-errors.js'

export type EncodedFile = { path: string } & EncodedContent

/**
 * A version's contents: its files, and the assets its text files point to, which the folio
 * must hold as blobs too (so deletion finds them and no other folio's deletion takes them).
 */
export interface EncodedVersion {
  files: EncodedFile[]
  assets: IncomingFile[]
}

/** How the API's file values become contents to store, and whether reads show asset pointers. */
export interface FileEncoding {
  readonly pointers: boolean
  /** For a new folio of this workspace. */
  encodeNew(workspaceId: string, files: FileMap): Promise<EncodedVersion>
  /** For a new version of this folio; undefined when the folio does not exist. */
  encodeFor(folioId: string, files: FileMap): Promise<EncodedVersion | undefined>
  /** An asset's bytes, when a folio of this workspace holds it as a blob (GET /api/assets/{hash}). */
  asset(workspaceId: string, hash: string): Promise<{ bytes: Buffer; mime: string } | undefined>
}

const plain = (files: FileMap): EncodedVersion => ({
  files: Object.entries(files).map(([path, content]) => ({ path, ...encodeFileContent(content) })),
  assets: [],
})

/** OSS: file values are stored as they are sent (text, or base64 data URLs kept as bytes). */
export const PLAIN_FILES: FileEncoding = {
  pointers: false,
  encodeNew: async (_workspaceId, files) => plain(files),
  encodeFor: async (_folioId, files) => plain(files),
  asset: async () => undefined,
}

/** What the resolver reads of folios (the repository). */
export interface FolioLookup {
  get(id: string): Promise<{ workspaceId: string; head: number } | undefined>
  manifest(id: string, n: number): Promise<VersionManifest | undefined>
  listIds(workspaceId: string): Promise<string[]>
}

/**
 * Cloud mode's file values (spec, Version: images become `asset://` pointers). A client that
 * read a version sends its pointers back when it writes the next one: each is resolved to the
 * content it names, but only when a folio of the same workspace holds that content (a hash is
 * no credential: another workspace's images stay out of reach). An image sent as bare base64
 * under an image's name is kept as the image it is. Everything else is encoded as in OSS, so a
 * write costs what it costs there unless it carries pointers.
 */
export class AssetResolver implements FileEncoding {
  readonly pointers = true
  readonly #contents: FolioContents
  readonly #folios: FolioLookup

  constructor(contents: FolioContents, folios: FolioLookup) {
    this.#contents = contents
    this.#folios = folios
  }

  encodeNew(workspaceId: string, files: FileMap): Promise<EncodedVersion> {
    return this.#encode(workspaceId, undefined, files)
  }

  async encodeFor(folioId: string, files: FileMap): Promise<EncodedVersion | undefined> {
    const meta = await this.#folios.get(folioId)
    return meta && this.#encode(meta.workspaceId, folioId, files)
  }

  async asset(workspaceId: string, hash: string): Promise<{ bytes: Buffer; mime: string } | undefined> {
    const holder = await this.#holder(workspaceId, undefined, hash)
    if (holder === undefined) return undefined
    const bytes = await this.#contents.content(holder, hash)
    // Pointers are made for images only: anything else a folio holds is no asset.
    const mime = sniffImage(bytes)
    return mime && { bytes, mime }
  }

  async #encode(workspaceId: string, folioId: string | undefined, files: FileMap): Promise<EncodedVersion> {
    const assets = new Map<string, Buffer>()
    const encoded = await mapLimit(Object.entries(files), 8, async ([path, content]): Promise<EncodedFile> => {
      const hash = pointedHash(content)
      if (hash) return { path, ...(await this.#resolve(workspaceId, folioId, path, hash)) }
      const whole = bareBase64Image(path, content) ?? encodeFileContent(content)
      if (whole.mime) return { path, ...whole }
      const text = this.#extract(content, assets)
      await this.#holdPointed(workspaceId, folioId, text, assets)
      return { path, bytes: text === content ? whole.bytes : Buffer.from(text, 'utf8') }
    })
    return { files: encoded, assets: [...assets].map(([h, bytes]) => ({ path: '', bytes, ref: { h, s: bytes.length } })) }
  }

  /** A text file's embedded data-URL images become assets, and the text points to them. */
  #extract(content: string, assets: Map<string, Buffer>): string {
    const images = embeddedImages(content)
    if (images.length === 0) return content
    const hashes = images.map((image) => hashBytes(image.bytes))
    images.forEach((image, i) => assets.set(hashes[i]!, image.bytes))
    return withPointers(content, images, hashes)
  }

  /**
   * Pointers a text file carries (sent back after a read, or copied from another folio): the
   * folio takes a hold on each content of its workspace it does not hold as a blob yet. A
   * pointer to anything else stays text, which the raw route serves as written.
   */
  async #holdPointed(workspaceId: string, folioId: string | undefined, text: string, assets: Map<string, Buffer>): Promise<void> {
    for (const hash of pointersIn(text)) {
      if (assets.has(hash) || (folioId !== undefined && (await this.#contents.holdsBlob(folioId, hash)))) continue
      const holder = await this.#holder(workspaceId, folioId, hash)
      if (holder !== undefined) assets.set(hash, await this.#contents.content(holder, hash))
    }
  }

  async #resolve(workspaceId: string, folioId: string | undefined, path: string, hash: string): Promise<EncodedContent> {
    const holder = await this.#holder(workspaceId, folioId, hash)
    if (holder === undefined) throw new UnknownAssetError(path, hash)
    const bytes = await this.#contents.content(holder, hash)
    const meta = await this.#folios.get(holder)
    const head = meta && (await this.#folios.manifest(holder, meta.head))
    const recorded = Object.values(head?.files ?? {}).find((ref) => ref.h === hash && ref.m)?.m
    return { bytes, mime: recorded ?? sniffImage(bytes) ?? 'application/octet-stream' }
  }

  /** The folio this write is for first (its whole history), then the workspace's others (their blobs). */
  async #holder(workspaceId: string, folioId: string | undefined, hash: string): Promise<string | undefined> {
    if (folioId !== undefined && (await this.#contents.has(folioId, hash))) return folioId
    for (const id of await this.#folios.listIds(workspaceId)) {
      if (id !== folioId && (await this.#contents.holdsBlob(id, hash))) return id
    }
    return undefined
  }
}
