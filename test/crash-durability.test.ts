import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createComment, deleteComment } from '../src/api/engagement.js'
import { getFolio, updateFolio } from '../src/api/files.js'
import { testApi } from './helpers/api.js'
import { killHard, spawnServer, type ServerProcess } from './helpers/cli-process.js'
import { makeDataDir } from './helpers/server.js'

const children: ServerProcess[] = []
const dirs: string[] = []
afterAll(async () => {
  for (const c of children) await killHard(c.child)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** A server process on a fresh data dir, or on `dataDir` again after a kill; killed and removed after the file. */
async function serveOn(dataDir?: string, env: Record<string, string> = {}) {
  const dir = dataDir ?? (await makeDataDir())
  if (!dataDir) dirs.push(dir)
  const server = await spawnServer(dir, [], env)
  children.push(server)
  return { dataDir: dir, server, api: testApi(server.url) }
}

/** Content of write n: large enough for deltas and compaction to be running when the kill lands. */
const page = (n: number) =>
  `<h1>Version ${n}</h1>\n${Array.from({ length: 400 }, (_, i) => `<p>Line ${i}${i === n % 400 ? ` changed by ${n}` : ''}</p>`).join('\n')}`

describe('crash durability', () => {
  it('keeps every acknowledged version exactly after SIGKILL in the middle of a stream of PUTs', async () => {
    const started = await serveOn()
    const { dataDir } = started
    let { server, api } = started
    const id = await api.create('Crash test', { 'index.html': page(0), 'style.css': 'body{}' })
    const acked = new Map<string, Record<string, string>>()
    let n = 0

    for (let round = 0; round < 3; round++) {
      // Four writers keep PUTs in flight; the kill lands while some are half done.
      let stop = false
      const writer = async () => {
        while (!stop) {
          const files = { 'index.html': page(++n), 'style.css': `body{margin:${n}px}`, [`extra-${n % 5}.txt`]: `x${n}` }
          try {
            const reply = await api.send(updateFolio, { params: { id }, body: { files, commitMessage: `write ${n}` } })
            if (reply.status === 200) acked.set(reply.body.project.latestVersionId, files)
          } catch {
            return // the connection died with the server
          }
        }
      }
      const writers = [writer(), writer(), writer(), writer()]
      await new Promise((r) => setTimeout(r, 150 + round * 100))
      await killHard(server.child)
      stop = true
      await Promise.all(writers)

      ;({ server, api } = await serveOn(dataDir))
      const full = await api.send(getFolio, { params: { id } })
      expect(full.status).toBe(200)
      const versions: any[] = full.body.versions
      // Versions are contiguous v1..vN, and every acknowledged one is there with its exact files.
      expect(versions.map((v) => v.versionId)).toEqual(versions.map((_, i) => `v${i + 1}`))
      for (const [versionId, files] of acked) {
        const v = versions.find((x) => x.versionId === versionId)
        expect(v, `acknowledged ${versionId} lost`).toBeDefined()
        expect(v.files).toEqual(files)
      }
      // Writes go on from where the history ends.
      const next = await api.send(updateFolio, { params: { id }, body: { files: { 'index.html': 'after restart' } } })
      expect(next.status).toBe(200)
      expect(next.body.project.latestVersionId).toBe(`v${versions.length + 1}`)
      acked.set(next.body.project.latestVersionId, { 'index.html': 'after restart' })
    }
    expect(acked.size).toBeGreaterThan(10)
    // No temp file survives a restart.
    expect(await readdir(join(dataDir, '.tmp'))).toEqual([])
    await killHard(server.child)
    // Killed or not, no server logged anything: a restart after a crash is no error.
    for (const c of children) expect(c.stderr(), `the log of the server at ${c.url}`).toBe('')
  })

  it('keeps every acknowledged version after SIGKILL while checkpoints write the journal back to the files', async () => {
    const started = await serveOn()
    const { dataDir } = started
    let { server, api } = started
    // Two folios: one whose versions replace each other (most contents never reach a file), one
    // written now and then (its files are written back and must stay right).
    const hot = await api.create('Hot', { 'index.html': page(0) })
    const cold = await api.create('Cold', { 'index.html': page(0) })
    const acked = new Map<string, Map<string, Record<string, string>>>([
      [hot, new Map()],
      [cold, new Map()],
    ])
    let n = 0
    for (let round = 0; round < 2; round++) {
      let stop = false
      const writer = async (id: string, pauseMs: number, times = Infinity) => {
        for (let i = 0; i < times && !stop; i++) {
          const files = { 'index.html': page(++n), [`notes-${n % 3}.txt`]: `note ${n}` }
          try {
            const reply = await api.send(updateFolio, { params: { id }, body: { files, commitMessage: `write ${n}` } })
            if (reply.status === 200) acked.get(id)!.set(reply.body.project.latestVersionId, files)
          } catch {
            return
          }
          if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs))
        }
      }
      // The cold folio's last versions are written at the start: by the kill, the journal file
      // holding them (retired 2 s after its first record) has been checkpointed and deleted, so
      // only what its checkpoint wrote back keeps them. The hot one's writes go on: the kill
      // lands while later checkpoints write back, at a different moment each round.
      const writers = [writer(hot, 0), writer(hot, 0), writer(hot, 0), writer(cold, 50, 4)]
      await new Promise((r) => setTimeout(r, 4700 + round * 450))
      await killHard(server.child)
      stop = true
      await Promise.all(writers)

      ;({ server, api } = await serveOn(dataDir))
      for (const [id, versions] of acked) {
        const full = await api.send(getFolio, { params: { id } })
        expect(full.status).toBe(200)
        const found: any[] = full.body.versions
        expect(found.map((v) => v.versionId)).toEqual(found.map((_, i) => `v${i + 1}`))
        for (const [versionId, files] of versions) expect(found.find((v) => v.versionId === versionId)?.files, `${id} ${versionId}`).toEqual(files)
      }
    }
    expect(acked.get(hot)!.size).toBeGreaterThan(20)
    expect(acked.get(cold)!.size).toBe(8)
    await killHard(server.child)
    for (const c of children) expect(c.stderr(), `the log of the server at ${c.url}`).toBe('')
  })

  it('keeps every version group-committed for concurrent writers after SIGKILL during the commits, in order, none half there', async () => {
    const started = await serveOn()
    const { dataDir } = started
    let { server, api } = started
    const id = await api.create('Crash batches', { 'index.html': page(0) })
    /** Every request sent, acknowledged or not, by its (unique) commit message. */
    const sent = new Map<string, Record<string, string>>()
    const acked: Array<{ writer: number; seq: number; versionId: string; message: string }> = []
    let n = 0

    for (let round = 0; round < 3; round++) {
      // 24 writers on one folio: while one commit is on disk the next batch gathers.
      let stop = false
      const writer = async (w: number) => {
        for (let seq = 0; !stop; seq++) {
          const message = `round ${round} writer ${w} write ${seq}`
          const files = { 'index.html': page(++n), [`writer-${w}.txt`]: message, ...(seq % 3 === 0 ? { 'shared.css': `p{margin:${n}px}` } : {}) }
          sent.set(message, files)
          try {
            const reply = await api.send(updateFolio, { params: { id }, query: { files: 'none' }, body: { files, commitMessage: message } })
            if (reply.status === 200) acked.push({ writer: w, seq, versionId: reply.body.project.latestVersionId, message })
          } catch {
            return // the connection died with the server
          }
        }
      }
      const writers = Array.from({ length: 24 }, (_, w) => writer(w + round * 100))
      await new Promise((r) => setTimeout(r, 250 + round * 150))
      await killHard(server.child)
      stop = true
      await Promise.all(writers)

      ;({ server, api } = await serveOn(dataDir))
      const full = await api.send(getFolio, { params: { id } })
      expect(full.status).toBe(200)
      const versions: any[] = full.body.versions
      expect(versions.map((v) => v.versionId)).toEqual(versions.map((_, i) => `v${i + 1}`))
      // Every version there is whole: exactly the files of the request that made it. A batch
      // the kill cut short left none of its versions, acknowledged or not.
      for (const v of versions.slice(1)) expect(v.files, `${v.versionId} (${v.commitMessage})`).toEqual(sent.get(v.commitMessage))
      const byId = new Map(versions.map((v) => [v.versionId, v]))
      for (const a of acked) expect(byId.get(a.versionId)?.commitMessage, `acknowledged ${a.versionId} lost`).toBe(a.message)
      // A writer's versions are in the order it wrote them.
      for (const w of new Set(acked.map((a) => a.writer))) {
        const numbers = acked
          .filter((a) => a.writer === w)
          .sort((x, y) => x.seq - y.seq)
          .map((a) => Number(a.versionId.slice(1)))
        expect(numbers).toEqual([...numbers].sort((x, y) => x - y))
      }
      const next = await api.send(updateFolio, {
        params: { id },
        query: { files: 'none' },
        body: { files: { 'index.html': 'after restart' }, commitMessage: `after round ${round}` },
      })
      expect(next.body.project.latestVersionId).toBe(`v${versions.length + 1}`)
      sent.set(`after round ${round}`, { 'index.html': 'after restart' })
    }
    // Enough writes that many commits held several versions each.
    expect(acked.length).toBeGreaterThan(50)
    expect(await readdir(join(dataDir, '.tmp'))).toEqual([])
    await killHard(server.child)
    for (const c of children) expect(c.stderr(), `the log of the server at ${c.url}`).toBe('')
  })

  it('keeps every acknowledged comment after SIGKILL during a stream of comments and deletes, and never gives a deleted id again', async () => {
    const limits = { FOLIO_RATE_LIMITS: 'comments=100000' }
    const started = await serveOn(undefined, limits)
    const { dataDir } = started
    let { server, api } = started
    const id = await api.create('Crash comments', { 'index.html': '<h1>Hi</h1>' }, { status: 'published' })
    const kept = new Map<string, string>()
    const deleted = new Set<string>()
    /** Deletes the kill cut off: done or not, their ids were given. */
    const unsure = new Set<string>()
    let n = 0

    for (let round = 0; round < 3; round++) {
      let stop = false
      const writer = async () => {
        while (!stop) {
          const text = `comment ${++n} ${'c'.repeat(2000)}`
          try {
            const made = await api.send(createComment, { params: { id }, body: { text, versionId: 'v1', filename: 'index.html' } })
            if (made.status !== 200) continue
            kept.set(made.body.comment.id, text)
            // Every third one goes again: its id must stay used.
            if (n % 3 === 0) {
              const commentId = made.body.comment.id
              kept.delete(commentId)
              unsure.add(commentId)
              const gone = await api.send(deleteComment, { params: { id }, query: { commentId } })
              if (gone.status === 200) {
                unsure.delete(commentId)
                deleted.add(commentId)
              }
            }
          } catch {
            return // the connection died with the server
          }
        }
      }
      const writers = [writer(), writer(), writer(), writer()]
      await new Promise((r) => setTimeout(r, 150 + round * 100))
      await killHard(server.child)
      stop = true
      await Promise.all(writers)

      ;({ server, api } = await serveOn(dataDir, limits))
      const comments: any[] = (await api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments
      const byId = new Map(comments.map((c) => [c.id, c.text]))
      for (const [commentId, text] of kept) expect(byId.get(commentId), `acknowledged ${commentId} lost`).toBe(text)
      for (const commentId of deleted) expect(byId.has(commentId), `deleted ${commentId} came back`).toBe(false)
      // A new comment takes an id above every id ever answered, deleted ones included.
      const next = await api.send(createComment, { params: { id }, body: { text: 'after restart', versionId: 'v1', filename: 'index.html' } })
      const highest = Math.max(...[...kept.keys(), ...deleted, ...unsure].map((c) => Number(c.slice(2))))
      expect(Number(next.body.comment.id.slice(2))).toBeGreaterThan(highest)
      kept.set(next.body.comment.id, 'after restart')
    }
    expect(kept.size + deleted.size).toBeGreaterThan(30)
    expect(deleted.size).toBeGreaterThan(5)
    await killHard(server.child)
    for (const c of children) expect(c.stderr(), `the log of the server at ${c.url}`).toBe('')
  })
})
