import type { ParsedPage } from '../../domain/anchor-match.js'
import { isOpen, isReply, pinnedVersion } from '../../domain/comment-threads.js'
import type { StoredComment } from '../../domain/comments.js'
import { versionId, versionNumber } from '../../domain/ids.js'
import { mimeForPath } from '../../domain/image-sniff.js'
import type { BlobRef, VersionManifest } from '../../domain/model.js'
import type { FolioRepository } from './folio-repository.js'

/** A page larger than this is not parsed: its pins are carried forward unchecked. */
export const REANCHOR_MAX_FILE_BYTES = 4 * 1024 * 1024

/**
 * What re-anchoring found for one comment. Applied only if the comment is still as it was read
 * (open, not outdated, on `from` with `selector`): a resolve or a newer run in between wins.
 */
export interface AnchorMove {
  commentId: string
  from: string
  selector: string
  next: Pick<StoredComment, 'anchoredVersionId' | 'outdated' | 'anchor'>
}

export interface CommentAnchorsOptions {
  folios: FolioRepository
  /** Every comment of the folio, oldest first. */
  comments: (id: string) => Promise<StoredComment[]>
  /** Writes the moves in one batch (or, with none, just tells the live pages) . */
  apply: (id: string, moves: AnchorMove[]) => Promise<void>
  warn: (message: string) => void
  /** At most this many pins are looked at per run, the newest (the folio's comment ceiling). */
  maxComments: number
}

/**
 * Re-anchoring (issue 9): when a version lands, each open pin whose element was last found on an
 * older version is looked for in the new one (domain/anchor-match.ts) and moved forward, with a
 * new selector if the element moved; one whose element is gone is marked outdated. It runs in
 * the background after the answer, one run per folio at a time; a version landing during a run
 * makes one more run, so pins end up against the newest version. Shutdown waits for it (idle).
 */
export class CommentAnchors {
  readonly #options: CommentAnchorsOptions
  readonly #running = new Map<string, Promise<void>>()
  readonly #again = new Set<string>()

  constructor(options: CommentAnchorsOptions) {
    this.#options = options
  }

  schedule(id: string): void {
    if (this.#running.has(id)) {
      this.#again.add(id)
      return
    }
    const run = (async () => {
      do {
        this.#again.delete(id)
        await this.#run(id)
      } while (this.#again.has(id))
    })().finally(() => this.#running.delete(id))
    this.#running.set(id, run)
  }

  async idle(): Promise<void> {
    while (this.#running.size) await Promise.allSettled([...this.#running.values()])
  }

  async #run(id: string): Promise<void> {
    const { folios } = this.#options
    try {
      const meta = await folios.get(id)
      const head = meta && (await folios.manifest(id, meta.head))
      if (!meta || !head) return
      const latest = versionId(meta.head)
      const pins = (await this.#options.comments(id))
        .filter((c) => c.anchor !== undefined && !isReply(c) && isOpen(c) && c.outdated !== true && pinnedVersion(c) !== latest)
        .slice(-this.#options.maxComments)
      if (pins.length === 0) return await this.#options.apply(id, [])
      // The parser and selector engine load with the first pin to look for, not at every start.
      const match = await import('../../domain/anchor-match.js')
      const moves: AnchorMove[] = []
      const look = new Lookup(folios, id, match)
      for (const c of pins) {
        // Parsing and searching are synchronous work: let requests through between pins.
        await new Promise((resolve) => setImmediate(resolve))
        const next = await this.#relocate(c, head, latest, look)
        if (next) moves.push({ commentId: c.id, from: pinnedVersion(c), selector: c.anchor!.selector, next })
      }
      await this.#options.apply(id, moves)
    } catch (error) {
      if (await folios.get(id).catch(() => undefined))
        this.#options.warn(`Re-anchoring the comments of ${id} failed (they stay where they were): ${(error as Error).message}`)
    }
  }

  /** Where one pin stands in the head version; undefined: leave it. */
  async #relocate(c: StoredComment, head: VersionManifest, latest: string, look: Lookup): Promise<AnchorMove['next'] | undefined> {
    const ref = head.files[c.filename]
    if (!ref) return { outdated: true }
    if (!isHtml(c.filename, ref)) return undefined
    const n = versionNumber(pinnedVersion(c))
    const before = n === undefined ? undefined : (await look.manifest(n))?.files[c.filename]
    // The same page (another file changed): the element is where it was.
    if (before?.h === ref.h) return { anchoredVersionId: latest }
    if (ref.s > REANCHOR_MAX_FILE_BYTES) return { anchoredVersionId: latest }
    const page = await look.page(ref.h)
    const previous = before && isHtml(c.filename, before) && before.s <= REANCHOR_MAX_FILE_BYTES ? await look.page(before.h) : undefined
    const found = look.match.relocate(page, c.anchor!, previous)
    if (found.found) return { anchoredVersionId: latest, anchor: { ...c.anchor!, selector: found.selector } }
    // An element no version's HTML had (a script builds it) cannot be judged here: it goes forward.
    return found.judged ? { outdated: true } : { anchoredVersionId: latest }
  }
}

const isHtml = (path: string, ref: BlobRef) => mimeForPath(path, ref.m).startsWith('text/html')

/** One run's reads: each manifest and each page parsed once, however many pins share them. */
class Lookup {
  readonly #manifests = new Map<number, Promise<VersionManifest | undefined>>()
  readonly #pages = new Map<string, Promise<ParsedPage>>()

  constructor(
    readonly folios: FolioRepository,
    readonly id: string,
    readonly match: typeof import('../../domain/anchor-match.js'),
  ) {}

  manifest(n: number): Promise<VersionManifest | undefined> {
    let found = this.#manifests.get(n)
    if (!found) this.#manifests.set(n, (found = this.folios.manifest(this.id, n)))
    return found
  }

  page(hash: string): Promise<ParsedPage> {
    let found = this.#pages.get(hash)
    if (!found) this.#pages.set(hash, (found = this.folios.content(this.id, hash).then((bytes) => this.match.parsePage(bytes.toString('utf8')))))
    return found
  }
}
