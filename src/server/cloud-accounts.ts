import { AgentRegistration } from './agent-registration.js'
import { CloudCredentials } from './cloud-credentials.js'
import type { ServerContext } from './context.js'
import { loadTrustedIssuers } from './identity-assertions.js'

/** What Cloud adds for agents and people: their credentials and the services that issue them. */
export interface CloudAccounts {
  credentials: CloudCredentials
  agents: AgentRegistration
  /** Reads the credentials into memory: before the server takes its first request. */
  load(): Promise<void>
}

/** Builds the Cloud accounts of a context and plugs their credentials into auth.ts. */
export function createCloudAccounts(ctx: Omit<ServerContext, 'cloud'>): CloudAccounts {
  const { shared, store, mailer, log, config } = ctx
  const credentials = new CloudCredentials(shared, store.workspaces)
  ctx.auth.addResolver(credentials.resolve)
  const agents = new AgentRegistration({ shared, workspaces: store.workspaces, credentials, mailer, issuers: loadTrustedIssuers(config.agentIssuers), log })
  return {
    credentials,
    agents,
    async load() {
      await credentials.load()
    },
  }
}
