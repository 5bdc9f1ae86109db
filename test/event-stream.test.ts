import { describe, expect, it } from 'vitest'
import { readEventStream, type StreamMessage } from '../src/client/index.js'

/** A body that arrives in exactly these chunks. */
const body = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
      controller.close()
    },
  })

const read = async (stream: ReadableStream<Uint8Array>) => {
  const out: StreamMessage[] = []
  for await (const message of readEventStream(stream)) out.push(message)
  return out
}

describe('readEventStream', () => {
  it('parses events and comments however the chunks cut them, with any line ending', async () => {
    const messages = await read(
      body(': folio live', ' updates\n\nevent: comm', 'ents\r', '\ndata: {"a":1}\r\n\r\n', 'data: one\rdata: two\r\r', 'event: version\ndata:x\n\n'),
    )
    expect(messages).toEqual([
      { type: 'comment', text: 'folio live updates' },
      { type: 'event', event: 'comments', data: '{"a":1}' },
      { type: 'event', event: 'message', data: 'one\ntwo' },
      { type: 'event', event: 'version', data: 'x' },
    ])
  })

  it('drops an event the body ends in the middle of, and fields it does not know', async () => {
    expect(await read(body('id: 7\nretry: 10\nevent: meta\ndata: {}\n\nevent: cut\ndata: half'))).toEqual([{ type: 'event', event: 'meta', data: '{}' }])
  })

  it('keeps characters split across chunks whole', async () => {
    const bytes = new TextEncoder().encode('data: “quoted” ✓\n\n')
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]))
        controller.close()
      },
    })
    expect(await read(stream)).toEqual([{ type: 'event', event: 'message', data: '“quoted” ✓' }])
  })
})
