import { Worker } from 'node:worker_threads'

/*
 * The worker's code, inline (evaluated as CommonJS): the bundle stays one entry, and this is all
 * it does. A path that is gone needs no fsync: a file removed since (its removal is durable by its
 * folder's fsync), or a folder emptied and removed.
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads')
const { openSync, fsyncSync, closeSync } = require('node:fs')
parentPort.on('message', ({ id, paths }) => {
  let error
  for (const path of paths) {
    let fd
    try {
      fd = openSync(path, 'r')
    } catch (e) {
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') continue
      error = String(e.message)
      break
    }
    try {
      fsyncSync(fd)
    } catch (e) {
      error = String(e.message)
    } finally {
      closeSync(fd)
    }
    if (error) break
  }
  parentPort.postMessage({ id, error })
})
`

/**
 * fsyncs of many files and folders on a thread of their own. A checkpoint makes hundreds of
 * paths durable; through libuv's pool (four threads, shared by every file call of the server)
 * each would hold a thread for a disk flush, and requests' own calls would queue behind them.
 * One worker, one path at a time: the background work never takes more than its one thread.
 */
export class BackgroundFsync {
  #worker: Worker | undefined
  #next = 0
  readonly #waiting = new Map<number, { resolve(): void; reject(error: Error): void }>()

  /** Resolves once every path is durable (those gone are skipped). */
  sync(paths: string[]): Promise<void> {
    if (paths.length === 0) return Promise.resolve()
    const worker = this.#start()
    const id = ++this.#next
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject })
      // Only while it has work does the worker keep the process alive.
      if (this.#waiting.size === 1) worker.ref()
      worker.postMessage({ id, paths })
    })
  }

  async close(): Promise<void> {
    const worker = this.#worker
    this.#worker = undefined
    if (worker) await worker.terminate()
  }

  #start(): Worker {
    if (this.#worker) return this.#worker
    const worker = new Worker(SOURCE, { eval: true })
    worker.on('message', ({ id, error }: { id: number; error?: string }) => {
      const waiting = this.#waiting.get(id)
      this.#waiting.delete(id)
      if (this.#waiting.size === 0) worker.unref()
      if (error) waiting?.reject(new Error(`Checkpoint fsync failed: ${error}`))
      else waiting?.resolve()
    })
    worker.on('error', (error) => this.#failAll(error))
    worker.on('exit', () => {
      if (this.#worker === worker) this.#worker = undefined
      this.#failAll(new Error('Checkpoint worker stopped'))
    })
    this.#worker = worker
    return worker
  }

  #failAll(error: Error): void {
    for (const waiting of this.#waiting.values()) waiting.reject(error)
    this.#waiting.clear()
  }
}
