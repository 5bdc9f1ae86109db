import { AgentRegistration } from './agent-registration.js'
import { CloudCredentials } from './cloud-credentials.js'
import { type NewCommentNotice, notifyCollaborators } from '../mail/collaborator-notices.js'
import type { FolioStore, SharedState } from '../../store/index.js'
import type { Auth } from '../auth/auth.js'
import type { ServerConfig } from '../config.js'
import type { Mailer } from '../mail/mailer.js'
import { loadTrustedIssuers } from './identity-assertions.js'
import { SignIn } from './sign-in.js'

/** What Cloud adds for agents and people: their credentials and the services that issue them. */
export interface CloudAccounts {
  credentials: CloudCredentials
  agents: AgentRegistration
  signIn: SignIn
  /** Tells a folio's collaborators of a new comment, by e-mail, in the background. */
  notifyComment(notice: NewCommentNotice): Promise<void>
  /** Reads the credentials into memory: before the server takes its first request. */
  load(): Promise<void>
}

/** Builds the Cloud accounts of a context and plugs their credentials into auth.ts. */
export interface CloudAccountDeps {
  auth: Auth
  shared: SharedState
  store: FolioStore
  mailer: Mailer
  config: ServerConfig
  log: (message: string, error?: unknown) => void
}

export function createCloudAccounts(ctx: CloudAccountDeps): CloudAccounts {
  const { shared, store, mailer, log, config } = ctx
  const credentials = new CloudCredentials(shared, store.workspaces, store.changes)
  ctx.auth.addResolver(credentials.resolve, credentials.refresh)
  const agents = new AgentRegistration({ shared, workspaces: store.workspaces, credentials, mailer, issuers: loadTrustedIssuers(config.agentIssuers), log })
  const signIn = new SignIn({ shared, workspaces: store.workspaces, credentials, mailer, log })
  return {
    credentials,
    agents,
    signIn,
    notifyComment: (notice) => notifyCollaborators({ mailer, log }, notice),
    async load() {
      await credentials.load()
    },
  }
}
