import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { toNodeHandler } from 'h3/node'
import { createApp, createServerContext } from '../../src/server/app.js'
import { type ConfigOverrides, defaultConfig } from '../../src/server/config.js'
import type { StoreRepositories } from '../../src/store/assemble-store.js'
import type { FolioStore } from '../../src/store/index.js'

/**
 * Cloud servers (the real app, hot cache and live streams) over stores assembled by
 * startInstances (helpers/instances.ts): what a client sees when a balancer sends its requests
 * to either instance. Problems the servers log are kept for the test to hold to none.
 */
export function instanceServers() {
  const servers: Server[] = []
  const problems: string[] = []
  return {
    problems,
    async serve(repositories: StoreRepositories, config: ConfigOverrides = {}): Promise<string> {
      const store: FolioStore = {
        ...repositories,
        dataDir: 'memory',
        readiness: async () => ({ ready: true }),
        close: async () => {},
        writeBack: async () => {},
      }
      const ctx = createServerContext({
        store,
        config: defaultConfig({ mode: 'cloud', ...config }),
        log: (message, error) => problems.push(`${message} ${error ?? ''}`),
      })
      await ctx.cloud?.load()
      await ctx.oauth.load()
      const routed = toNodeHandler(createApp(ctx))
      const server = createServer((req, res) => {
        if (!ctx.hot.serve(req, res, routed)) void routed(req, res)
      })
      servers.push(server)
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    },
    async closeAll(): Promise<void> {
      for (const server of servers.splice(0)) {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      }
    },
  }
}
