/** Text made piece by piece, as a byte stream that asks for the next piece only when read. */
export function toStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await chunks.next()
      if (done) controller.close()
      else controller.enqueue(encoder.encode(value))
    },
    async cancel() {
      await chunks.return(undefined)
    },
  })
}

/** The pieces already made, then the rest. */
export async function* prepend(first: string, rest: AsyncGenerator<string>): AsyncGenerator<string> {
  yield first
  yield* rest
}
