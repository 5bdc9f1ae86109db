import { watchFile, unwatchFile } from 'node:fs'
import { join } from 'node:path'
import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../engine/json-io.js'
import { keys } from '../keys.js'

/** What a plan allows a workspace (Cloud). */
export interface Plan {
  requestsPerMinute: number
  aiMessagesPerMonth: number
  storageBytes: number
}

export type PlanTable = Record<string, Plan>

const MB = 1024 * 1024
const GB = 1024 * MB

/** Written to plans.json on the first Cloud start; the operator edits the file from then on. */
export const DEFAULT_PLANS: PlanTable = {
  free: { requestsPerMinute: 120, aiMessagesPerMonth: 50, storageBytes: 100 * MB },
  pro: { requestsPerMinute: 600, aiMessagesPerMonth: 1_000, storageBytes: 10 * GB },
  team: { requestsPerMinute: 3_000, aiMessagesPerMonth: 10_000, storageBytes: 100 * GB },
}

const FIELDS = ['requestsPerMinute', 'aiMessagesPerMonth', 'storageBytes'] as const

/** What is wrong with a plans document, or undefined when it is a usable table. */
export function planTableProblem(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'it is not a JSON object of plans'
  const entries = Object.entries(value)
  if (!entries.length) return 'it names no plan'
  for (const [name, plan] of entries) {
    if (!plan || typeof plan !== 'object') return `plan "${name}" is not an object`
    for (const field of FIELDS) {
      const n = (plan as Record<string, unknown>)[field]
      if (!Number.isSafeInteger(n) || (n as number) < 0) return `plan "${name}": ${field} must be a whole number of at least 0`
    }
  }
  return undefined
}

/**
 * The plans of a Cloud server: plans.json in the data dir, written with the defaults on the
 * first start, read on every start and again whenever the operator changes the file (a broken
 * edit is reported and the plans in force stay). Answers come from memory.
 */
/** A plans table that cannot be used, and why. */
export class PlansInvalidError extends Error {}

export class Plans {
  readonly #storage: Storage
  readonly #path: string
  readonly #warn: (message: string) => void
  #table: PlanTable = DEFAULT_PLANS
  #watching = false
  #poll: NodeJS.Timeout | undefined
  /** The plans live in a database (several instances): read again on a timer, there is no file to watch. */
  readonly #inDatabase: boolean

  constructor(storage: Storage, dataDir: string, warn: (message: string) => void, options: { inDatabase?: boolean } = {}) {
    this.#storage = storage
    this.#inDatabase = options.inDatabase ?? false
    this.#path = this.#inDatabase ? `the database's ${keys.plans}` : join(dataDir, keys.plans)
    this.#warn = warn
  }

  /** Reads plans.json (writing the defaults when there is none); throws when it is broken. */
  async load(): Promise<this> {
    const stored = await readJson<PlanTable>(this.#storage, keys.plans)
    if (!stored) await writeJson(this.#storage, keys.plans, DEFAULT_PLANS)
    const table = stored ?? DEFAULT_PLANS
    const problem = planTableProblem(table)
    if (problem) throw new Error(`${this.#path}: ${problem}. Fix the file (or remove it to get the defaults back) and start again.`)
    this.#table = table
    return this
  }

  /** Reloads the file when it changes (polled: an editor's rename-over is seen too). */
  watch(intervalMs = 2_000): void {
    if (this.#watching) return
    this.#watching = true
    if (this.#inDatabase) this.#poll = setInterval(() => void this.#reload(), intervalMs).unref()
    else watchFile(this.#path, { interval: intervalMs, persistent: false }, () => void this.#reload())
  }

  stop(): void {
    if (this.#watching && !this.#inDatabase) unwatchFile(this.#path)
    clearInterval(this.#poll)
    this.#watching = false
  }

  async #reload(): Promise<void> {
    try {
      const stored = await readJson<PlanTable>(this.#storage, keys.plans)
      const problem = stored ? planTableProblem(stored) : 'it is missing'
      if (problem) return this.#warn(`${this.#path}: ${problem}; the plans in force stay as they were.`)
      this.#table = stored!
    } catch (error) {
      this.#warn(`${this.#path} could not be read (${(error as Error).message}); the plans in force stay as they were.`)
    }
  }

  /** The plans in force (folio admin plans). */
  table(): PlanTable {
    return this.#table
  }

  /** Replaces the plans (folio admin plans <file>): refused whole when the table is not a valid one. */
  async replace(table: unknown): Promise<PlanTable> {
    const problem = planTableProblem(table)
    if (problem) throw new PlansInvalidError(problem)
    await writeJson(this.#storage, keys.plans, table as PlanTable)
    this.#table = table as PlanTable
    return this.#table
  }

  names(): string[] {
    return Object.keys(this.#table)
  }

  has(name: string): boolean {
    return Object.hasOwn(this.#table, name)
  }

  /** A plan by name; a workspace on a plan the file no longer names gets the first one's limits. */
  of(name: string): Plan {
    return (Object.hasOwn(this.#table, name) ? this.#table[name] : Object.values(this.#table)[0])!
  }
}
