import type { FolioStore } from '../store/index.js'
import type { Auth } from './auth.js'
import type { HotCache } from './hot-cache.js'
import type { ServerConfig } from './config.js'
import type { Templates } from './templates.js'

/** What every route may use. Built once by createApp. */
export interface ServerContext {
  store: FolioStore
  config: ServerConfig
  auth: Auth
  hot: HotCache
  templates: Templates
  log: (message: string, error?: unknown) => void
}
