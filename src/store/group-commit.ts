import type { Locks } from './locks.js'

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
      const batch = queue.jobs.splice(0)
      try {
        await this.#locks.run(key, () => queue.flush(batch))
      } catch (error) {
        // Settling twice is harmless: a job the flush already answered keeps that answer.
        for (const job of batch) job.reject(error)
      }
    }
    if (this.#queues.get(key) === queue) this.#queues.delete(key)
  }

  /** Resolves once every queued write is on disk (shutdown). */
  async idle(): Promise<void> {
    while (this.#draining.size) await Promise.allSettled([...this.#draining])
  }
}
