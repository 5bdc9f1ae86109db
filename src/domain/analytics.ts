import type { Analytics } from './model.js'

/** A forged beacon may not claim more than this many seconds at once (viewers beacon every 30 s). */
export const MAX_BEACON_SECONDS = 600

export interface Beacon {
  isInitial: boolean
  sessionSeconds: number
  mobile: boolean
}

/** Reads whatever a beacon body holds; anything malformed counts as an empty beacon (spec). */
export function parseBeacon(body: unknown): Beacon {
  const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
  const seconds = typeof b.sessionSeconds === 'number' && Number.isFinite(b.sessionSeconds) && b.sessionSeconds > 0 ? b.sessionSeconds : 0
  return {
    isInitial: b.isInitial === true,
    sessionSeconds: Math.min(seconds, MAX_BEACON_SECONDS),
    mobile: b.device === 'mobile',
  }
}

export function applyBeacon(current: Analytics, beacon: Beacon): Analytics {
  const views = current.views + (beacon.isInitial ? 1 : 0)
  const totalTimeSeconds = Math.round((current.totalTimeSeconds + beacon.sessionSeconds) * 1000) / 1000
  return {
    views,
    totalTimeSeconds,
    // Spec: recalculated on each beacon.
    avgTimeSeconds: views > 0 ? Math.round((totalTimeSeconds / views) * 100) / 100 : 0,
    mobileViews: current.mobileViews + (beacon.isInitial && beacon.mobile ? 1 : 0),
    desktopViews: current.desktopViews + (beacon.isInitial && !beacon.mobile ? 1 : 0),
  }
}
