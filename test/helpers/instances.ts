import { createStorage, type Storage } from 'unstorage'
import { assembleStore, closeRepositories, type StoreRepositories } from '../../src/store/assemble-store.js'
import { KeyedMutex } from '../../src/store/coordination/keyed-mutex.js'
import type { Locks } from '../../src/store/coordination/locks.js'
import { MemoryPubSub } from '../../src/store/coordination/pub-sub-memory.js'
import type { PubSub, Subscriber } from '../../src/store/coordination/pub-sub.js'
import { MemorySharedState } from '../../src/store/coordination/shared-state-memory.js'

/**
 * Locks of several simulated instances over one table, as PostgreSQL's advisory locks and
 * generation rows are for real instances (pg/pg-locks.ts): one holder per key across all of
 * them; each key's generation is bumped at every release, and an instance taking a key whose
 * generation is not the one it saw when it last held it hears onStale(key) before its work.
 */
export class SharedLockTable {
  readonly #mutex = new KeyedMutex()
  readonly #generations = new Map<string, number>()

  instance(): Locks {
    return new InstanceLocks(this.#mutex, this.#generations)
  }
}

class InstanceLocks implements Locks {
  readonly #mutex: KeyedMutex
  readonly #generations: Map<string, number>
  /** The generation of each key as this instance left it. */
  readonly #seen = new Map<string, number>()
  readonly #listeners = new Set<(key: string) => void>()
  readonly #running = new Set<Promise<unknown>>()
  /** How many times onStale fired, per key (tests read it). */
  readonly staleCount = new Map<string, number>()

  constructor(mutex: KeyedMutex, generations: Map<string, number>) {
    this.#mutex = mutex
    this.#generations = generations
  }

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const task = this.#mutex.run(key, async () => {
      const generation = this.#generations.get(key) ?? 0
      if (generation !== (this.#seen.get(key) ?? 0)) {
        this.staleCount.set(key, (this.staleCount.get(key) ?? 0) + 1)
        for (const listener of this.#listeners) listener(key)
      }
      try {
        return await fn()
      } finally {
        this.#generations.set(key, generation + 1)
        this.#seen.set(key, generation + 1)
      }
    })
    this.#running.add(task)
    void task.then(
      () => this.#running.delete(task),
      () => this.#running.delete(task),
    )
    return task
  }

  runAll<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort()
    const step = (i: number): Promise<T> => (i === sorted.length ? fn() : this.run(sorted[i]!, () => step(i + 1)))
    return step(0)
  }

  async idle(): Promise<void> {
    while (this.#running.size) await Promise.allSettled([...this.#running])
  }

  onStale(listener: (key: string) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}

/**
 * One instance's connection to the bus the instances share: it can lose its connection
 * (messages sent meanwhile never reach it) and come back, when its subscribers hear `gap`, as
 * PostgreSQL's listener does after a reconnect.
 */
export class InstanceBus implements PubSub {
  readonly #bus: PubSub
  readonly #subscribers = new Set<Subscriber>()
  #connected = true

  constructor(bus: PubSub) {
    this.#bus = bus
  }

  publish(channel: string, message: string): Promise<void> {
    return this.#bus.publish(channel, message)
  }

  subscribe(channel: string, handlers: Subscriber): () => void {
    this.#subscribers.add(handlers)
    const stop = this.#bus.subscribe(channel, { message: (m) => this.#connected && handlers.message(m) })
    return () => {
      this.#subscribers.delete(handlers)
      stop()
    }
  }

  disconnect(): void {
    this.#connected = false
  }

  reconnect(): void {
    this.#connected = true
    for (const subscriber of this.#subscribers) subscriber.gap?.()
  }

  async close(): Promise<void> {}
}

export interface Instance {
  store: StoreRepositories
  locks: InstanceLocks
  bus: InstanceBus
}

/** `count` stores over ONE memory storage, one lock table and one message bus: instances of one deployment. */
export async function startInstances(
  count: number,
  options: { storageUsage?: boolean } = {},
): Promise<{ storage: Storage; shared: MemorySharedState; instances: Instance[]; close(): Promise<void> }> {
  const storage = createStorage()
  const table = new SharedLockTable()
  const bus = new MemoryPubSub({ onError: (error) => console.error(error) })
  const shared = new MemorySharedState()
  const warnings: string[] = []
  const instances: Instance[] = []
  for (let i = 0; i < count; i++) {
    const locks = table.instance() as InstanceLocks
    const instanceBus = new InstanceBus(bus)
    const store = assembleStore({ storage, locks, shared, pubSub: instanceBus, dataDir: `memory-${i}`, warn: (m) => warnings.push(m), ...options })
    await store.workspaces.load()
    instances.push({ store, locks, bus: instanceBus })
  }
  return {
    storage,
    shared,
    instances,
    async close() {
      for (const { store } of instances) await closeRepositories(store)
      if (warnings.length) throw new Error(`the store warned: ${warnings.join('; ')}`)
    },
  }
}

/** Resolves once `listen` has been called back `times` times for `id` (another instance's change heard here). */
export function heard(listen: (listener: (id: string) => void) => () => void, id: string, times = 1, ms = 5_000): Promise<void> {
  let seen = 0
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`heard ${seen} of ${times} changes of ${id}`)), ms)
    const stop = listen((changed) => {
      if (changed !== id || ++seen < times) return
      clearTimeout(timer)
      stop()
      resolve()
    })
  })
}
