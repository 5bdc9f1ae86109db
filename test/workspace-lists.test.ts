import { describe, expect, it } from 'vitest'
import type { FolioMeta } from '../src/domain/model.js'
import { LIST_CACHE_ENTRY_BYTES, type ListSource, WorkspaceLists } from '../src/store/repositories/workspace-lists.js'

/**
 * The kept list's rules, with the store replaced by folios in memory whose reads can be held
 * open: what a list built across a change may keep, which reads a change costs, and when a
 * list is streamed. (Through the real server: files-list-cache.test.ts.)
 */
function memorySource(workspaces: Record<string, string[]>) {
  const metas = new Map<string, FolioMeta>()
  for (const [workspaceId, ids] of Object.entries(workspaces)) for (const id of ids) metas.set(id, { id, workspaceId, title: id } as FolioMeta)
  const views = new Map<string, number>()
  const calls = { metas: 0, items: 0 }
  let hold: Promise<void> | undefined
  const source: ListSource = {
    async metas(workspaceId) {
      calls.metas++
      return [...metas.values()].filter((m) => m.workspaceId === workspaceId)
    },
    async item(meta) {
      calls.items++
      const json = JSON.stringify({ id: meta.id, title: meta.title, views: views.get(meta.id) ?? 0 })
      await hold
      return json
    },
    workspaceOf: (id) => metas.get(id)?.workspaceId,
  }
  return {
    source,
    calls,
    metas,
    views,
    /** Item reads wait until the returned function is called. */
    holdReads(): () => void {
      let release!: () => void
      hold = new Promise((resolve) => (release = resolve))
      return () => {
        release()
        hold = undefined
      }
    },
  }
}

const text = (list: Awaited<ReturnType<WorkspaceLists['get']>>) => {
  if (list instanceof ReadableStream) throw new Error('expected a finished list')
  return list.body.toString()
}

describe('WorkspaceLists', () => {
  it('answers a list built across a change, but does not keep it', async () => {
    const folios = memorySource({ w: ['a', 'b'] })
    const lists = new WorkspaceLists(folios.source)
    const release = folios.holdReads()
    const building = lists.get('w')
    await new Promise((resolve) => setImmediate(resolve))
    folios.views.set('a', 1)
    lists.changed('a', 'engagement')
    release()
    expect(text(await building)).toContain('"id":"a","title":"a","views":0')
    expect(lists.peek('w')).toBeUndefined()
    expect(text(await lists.get('w'))).toContain('"id":"a","title":"a","views":1')
    expect(lists.peek('w')).toBeDefined()
  })

  it('never lets a reader after a change join a build that began before it', async () => {
    const folios = memorySource({ w: ['a', 'b'] })
    const lists = new WorkspaceLists(folios.source)
    const release = folios.holdReads()
    const before = lists.get('w')
    await new Promise((resolve) => setImmediate(resolve))
    folios.views.set('a', 1)
    lists.changed('a', 'engagement')
    const after = lists.get('w')
    release()
    expect(text(await before)).toContain('"id":"a","title":"a","views":0')
    expect(text(await after)).toContain('"id":"a","title":"a","views":1')
    expect(lists.peek('w')).toBe(await after)
  })

  it('shares one build between concurrent readers, and keeps the list with a strong ETag of its bytes', async () => {
    const folios = memorySource({ w: ['a', 'b', 'c'] })
    const lists = new WorkspaceLists(folios.source)
    const release = folios.holdReads()
    const readers = Array.from({ length: 10 }, () => lists.get('w'))
    release()
    const answers = await Promise.all(readers)
    expect(folios.calls.metas).toBe(1)
    expect(folios.calls.items).toBe(3)
    expect(new Set(answers).size).toBe(1)
    const kept = lists.peek('w')!
    expect(JSON.parse(kept.body.toString()).map((f: { id: string }) => f.id)).toEqual(['a', 'b', 'c'])
    expect(kept.etag).toMatch(/^"[\w-]{27}"$/)
  })

  it('lists the workspace again after a folio change, not after comments, reactions or analytics', async () => {
    const folios = memorySource({ w: ['a', 'b'] })
    const lists = new WorkspaceLists(folios.source)
    const dropped: string[] = []
    lists.onChange((workspaceId) => dropped.push(workspaceId))
    await lists.get('w')
    folios.views.set('b', 5)
    lists.changed('b', 'engagement')
    expect(text(await lists.get('w'))).toContain('"id":"b","title":"b","views":5')
    expect(folios.calls.metas).toBe(1)
    folios.metas.set('c', { id: 'c', workspaceId: 'w', title: 'c' } as FolioMeta)
    lists.changed('c', 'folio')
    expect(JSON.parse(text(await lists.get('w'))).map((f: { id: string }) => f.id)).toEqual(['a', 'b', 'c'])
    expect(folios.calls.metas).toBe(2)
    expect(dropped).toEqual(['w', 'w'])
  })

  it('drops only the workspace of the folio that changed; a deleted or unknown folio by what the lists knew', async () => {
    const folios = memorySource({ w1: ['a'], w2: ['b'] })
    const lists = new WorkspaceLists(folios.source)
    await lists.get('w1')
    await lists.get('w2')
    lists.changed('a', 'engagement')
    expect(lists.peek('w1')).toBeUndefined()
    expect(lists.peek('w2')).toBeDefined()
    await lists.get('w1')
    // Gone from memory (deleted): the list that showed it knows its workspace.
    folios.metas.delete('b')
    lists.changed('b', 'gone')
    expect(lists.peek('w1')).toBeDefined()
    expect(lists.peek('w2')).toBeUndefined()
    expect(text(await lists.get('w2'))).toBe('[]')
    // Never listed and not in memory: every kept list goes.
    lists.changed('nowhere', 'folio')
    expect(lists.peek('w1')).toBeUndefined()
    expect(lists.peek('w2')).toBeUndefined()
  })

  it('streams a list over the cap, page by page, and keeps none of it', async () => {
    const ids = Array.from({ length: 600 }, (_, i) => `f${i}`)
    const folios = memorySource({ w: ids })
    const long = 'x'.repeat(Math.ceil(LIST_CACHE_ENTRY_BYTES / 500))
    for (const meta of folios.metas.values()) meta.title = long
    const lists = new WorkspaceLists(folios.source)
    const list = await lists.get('w')
    expect(list).toBeInstanceOf(ReadableStream)
    // Built as it is read: only the first pages are made before anyone reads.
    expect(folios.calls.items).toBeLessThan(ids.length)
    const chunks: Uint8Array[] = []
    const reader = (list as ReadableStream<Uint8Array>).getReader()
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value)
    expect(chunks.length).toBeGreaterThan(1)
    expect(JSON.parse(Buffer.concat(chunks).toString()).map((f: { id: string }) => f.id)).toEqual(ids)
    expect(folios.calls.items).toBe(ids.length)
    expect(lists.peek('w')).toBeUndefined()
  })
})
