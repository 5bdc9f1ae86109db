/**
 * What several server instances must agree on (issue 12; issue 15 puts it in PostgreSQL):
 * rate-limit windows, monthly counters, and short-lived records with a time to live and
 * compare-and-set (agent registration sessions, e-mail codes and their attempts, sign-in
 * sessions, invitations, later OAuth codes and tokens). Routes and auth use it through this
 * interface only, never through the store's files, so a second implementation changes no route.
 */
export interface SharedState {
  /**
   * Counts one hit in the fixed window of `windowMs` that holds now. Returns the count after this
   * hit and when the window ends (epoch ms). The caller compares the count with its limit.
   */
  hit(key: string, windowMs: number, now?: number): Promise<WindowCount>
  /**
   * The same, answered at once, for an implementation that holds its windows in this process's
   * memory: the hot path (a cached GET) then costs no promise. Others leave it out.
   */
  hitSync?(key: string, windowMs: number, now?: number): WindowCount
  /** Adds `by` to a counter that lives until `expiresAt` (epoch ms), e.g. AI messages of a month. */
  add(key: string, by: number, expiresAt: number): Promise<number>
  /** A counter's value (0 when absent or expired). */
  count(key: string): Promise<number>

  /** A record, unless absent or expired. */
  get<T>(key: string): Promise<Versioned<T> | undefined>
  /**
   * Writes a record that lives until `expiresAt` (epoch ms). With `ifVersion`, only when the
   * stored record is still that version (undefined version: only when there is none): false when
   * someone else changed it first. Returns the new version, or false.
   */
  set<T>(key: string, value: T, expiresAt: number, ifVersion?: number | null): Promise<number | false>
  /** Removes a record (with `ifVersion`: only that version). True when something was removed. */
  delete(key: string, ifVersion?: number): Promise<boolean>
  /** Every live record whose key starts with `prefix` (listing a workspace's sessions). */
  list<T>(prefix: string): Promise<Array<{ key: string } & Versioned<T>>>
}

export interface WindowCount {
  count: number
  /** Epoch ms when this window ends. */
  resetAt: number
}

export interface Versioned<T> {
  value: T
  version: number
  expiresAt: number
}

/**
 * Counts one hit in its fixed window, kept in `windows`: what each implementation that holds its
 * windows in memory does. Windows are aligned to multiples of windowMs, so every instance would
 * agree on them.
 */
export function hitWindow(windows: Map<string, WindowCount>, key: string, windowMs: number, now: number): WindowCount {
  let window = windows.get(key)
  if (!window || window.resetAt <= now) {
    window = { count: 0, resetAt: (Math.floor(now / windowMs) + 1) * windowMs }
    windows.set(key, window)
  }
  window.count++
  return { count: window.count, resetAt: window.resetAt }
}
