import { userInfo } from 'node:os'

export type Mode = 'oss' | 'cloud'

export interface ServerConfig {
  mode: Mode
  /** FOLIO_API_KEY (alias SERVICE_API_KEY): guards the sync endpoint in OSS, everything in Cloud. */
  apiKey?: string
  /** Author recorded on versions written through the open OSS API. */
  localAuthor: string
  limits: {
    /** PUT/POST body (spec: 20 MB) */
    jsonBodyBytes: number
    /** What a gzip payload may expand to */
    gzipExpandedBytes: number
  }
}

export function defaultConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  return {
    mode: 'oss',
    apiKey: process.env.FOLIO_API_KEY || process.env.SERVICE_API_KEY || undefined,
    localAuthor: safeUserName(),
    ...overrides,
    limits: {
      jsonBodyBytes: 20 * 1024 * 1024,
      gzipExpandedBytes: 100 * 1024 * 1024,
      ...overrides.limits,
    },
  }
}

function safeUserName(): string {
  try {
    return userInfo().username || 'owner'
  } catch {
    return 'owner'
  }
}
