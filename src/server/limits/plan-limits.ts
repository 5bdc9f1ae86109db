import type { Principal } from '../../domain/principal.js'
import type { Plan, Plans, SharedState, WindowCount, WorkspaceRepository } from '../../store/index.js'
import type { RateLimitState } from './rate-limit.js'

const MINUTE = 60_000

/**
 * Cloud: what a workspace's plan allows, counted where every instance sees the same count
 * (SharedState). Requests per minute are counted per workspace, whoever in it asks and whatever
 * credential they use, in fixed one-minute windows.
 */
export class PlanLimits {
  readonly #shared: SharedState
  readonly #workspaces: WorkspaceRepository
  readonly #plans: Plans
  /** rate:<workspace>, made once per workspace: the same string is hashed once, not per request. */
  readonly #rateKeys = new Map<string, string>()

  constructor(shared: SharedState, workspaces: WorkspaceRepository, plans: Plans) {
    this.#shared = shared
    this.#workspaces = workspaces
    this.#plans = plans
  }

  /** The plan a workspace is on now (plans.json may have changed since it was given). */
  planOf(workspaceId: string): { name: string; limits: Plan } {
    const name = this.#workspaces.get(workspaceId)?.plan ?? this.#plans.names()[0]!
    return { name, limits: this.#plans.of(name) }
  }

  /**
   * Counts one authenticated request of the caller's workspace: at once when the shared state
   * holds its windows in memory (hitSync), else through a promise.
   */
  hit(principal: Principal, now = Date.now()): RateLimitState | Promise<RateLimitState> {
    const limit = this.planOf(principal.workspaceId).limits.requestsPerMinute
    let key = this.#rateKeys.get(principal.workspaceId)
    if (!key) this.#rateKeys.set(principal.workspaceId, (key = `rate:${principal.workspaceId}`))
    if (this.#shared.hitSync) return stateOf(this.#shared.hitSync(key, MINUTE, now), limit)
    return this.#shared.hit(key, MINUTE, now).then((window) => stateOf(window, limit))
  }
}

function stateOf(window: WindowCount, limit: number): RateLimitState {
  const allowed = window.count <= limit
  return { allowed, limit, remaining: allowed ? limit - window.count : 0, reset: Math.ceil(window.resetAt / 1000) }
}
