import type { Locks } from './locks.js'

/** How long one hold of a key's lock may carry batch after batch (see #drain). */
const HOLD_MS = 20

/** A queued request: its flush settles it; a flush that throws rejects the whole batch. */
export interface Pending {
  reject(error: unknown): void
}

interface Queue {
  jobs: Pending[]
  flush: (batch: Pending[]) => Promise<void>
}

/**
 * Group commit, as databases do: requests for one key queue up while the previous flush is on
 * disk, then one flush applies them all under the key's lock, and every request is answered
 * once the flush holding it is durable. A burst of 1,000 beacons costs a few writes, not 1,000,
 * and none is lost.
 */
export class GroupCommit {
  readonly #locks: Locks
  readonly #queues = new Map<string, Queue>()
  readonly #draining = new Set<Promise<void>>()

  constructor(locks: Locks) {
    this.#locks = locks
  }

  /** Queues `job` for the key's next flush. One key always has one kind of job and flush. */
  add<J extends Pending>(key: string, job: J, flush: (batch: J[]) => Promise<void>): void {
    let queue = this.#queues.get(key)
    if (queue) {
      queue.jobs.push(job)
      return
    }
    queue = { jobs: [job], flush: flush as (batch: Pending[]) => Promise<void> }
    this.#queues.set(key, queue)
    const task = this.#drain(key, queue)
    this.#draining.add(task)
    void task.finally(() => this.#draining.delete(task))
  }

  async #drain(key: string, queue: Queue): Promise<void> {
    // Let every request that arrived in this turn of the event loop join the first flush.
    await new Promise((r) => setImmediate(r))
    while (queue.jobs.length) {
      try {
        // The batches that gather while one is flushed follow it under the same hold of the
        // lock, for up to HOLD_MS: on PostgreSQL each take and release of a lock is a round trip
        // (beacons of a busy folio spent as long on them as on their writes); the bound keeps
        // another instance's writers of the same key from waiting long.
        await this.#locks.run(key, async () => {
          const until = Date.now() + HOLD_MS
          do await this.#flushBatch(queue)
          while (queue.jobs.length && Date.now() < until)
        })
      } catch (error) {
        // #flushBatch settles its own jobs' failures: this is the lock's (the store is closing,
        // the database cannot be reached). What waits for it fails, rather than wait forever.
        for (const job of queue.jobs.splice(0)) job.reject(error)
      }
    }
    if (this.#queues.get(key) === queue) this.#queues.delete(key)
  }

  async #flushBatch(queue: Queue): Promise<void> {
    const batch = queue.jobs.splice(0)
    try {
      await queue.flush(batch)
    } catch (error) {
      // Settling twice is harmless: a job the flush already answered keeps that answer.
      for (const job of batch) job.reject(error)
    }
  }

  /** Resolves once every queued write is on disk (shutdown). */
  async idle(): Promise<void> {
    while (this.#draining.size) await Promise.allSettled([...this.#draining])
  }
}
