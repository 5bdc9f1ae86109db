import { ERRORS } from '../../api/errors.js'
import type { Principal } from '../../domain/principal.js'
import { type AiProviderConfig, type ReachableProvider, type RequestAiOptions, resolveCloudProvider, resolveOssProvider } from '../../ai/provider-config.js'
import { WEB_FETCH_LIMITS } from '../../ai/web-fetch.js'
import { NO_PRIVATE_HOSTS } from '../../domain/public-address.js'
import type { AiRecords, WorkspaceAiRecord } from '../../store/repositories/ai-records.js'
import { newSecret } from '../../store/repositories/settings-repository.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { type GuardedFetch, guardedFetch, outboundPolicy } from '../http/outbound-guard.js'

/** What this file takes from the server's context. */
export type AiServiceDeps = Pick<ServerContext, 'config' | 'store'>

type AiModule = typeof import('../../ai/index.js')

/**
 * What the AI routes share: the AI module (loaded on first use), the conversations and workspace
 * settings (store/repositories/ai-records.ts), and the decision of which provider serves a request.
 */
export class AiService {
  readonly records: AiRecords
  readonly #ctx: AiServiceDeps
  #module: Promise<AiModule> | undefined
  #secret: Promise<Buffer> | undefined

  constructor(ctx: AiServiceDeps) {
    this.#ctx = ctx
    this.records = ctx.store.ai
  }

  module(): Promise<AiModule> {
    this.#module ??= import('../../ai/index.js')
    return this.#module
  }

  /**
   * The secret workspace keys are sealed with: FOLIO_AI_SECRET (kept out of the data dir, so a
   * copy of the data alone does not reveal the keys), else one made on first use and kept in
   * settings/ (0600).
   */
  secret(): Promise<Buffer> {
    this.#secret ??= (async () => {
      const fromEnv = this.#ctx.config.ai.FOLIO_AI_SECRET
      if (fromEnv) return Buffer.from(fromEnv, 'utf8')
      // Under the setting's lock: instances starting together seal with one secret.
      const stored = await this.#ctx.store.settings.ensure<{ hex: string }>('ai-secret', newSecret, (s) => Boolean(s.hex))
      return Buffer.from(stored.hex, 'hex')
    })()
    return this.#secret
  }

  async workspaceSettings(workspaceId: string): Promise<WorkspaceAiRecord | undefined> {
    return this.records.workspaceSettings(workspaceId, await this.secret())
  }

  async setWorkspaceSettings(workspaceId: string, settings: WorkspaceAiRecord | undefined): Promise<void> {
    await this.records.setWorkspaceSettings(workspaceId, settings, await this.secret())
  }

  /**
   * The provider for a request. OSS: the request's key, model and Ollama host over the
   * environment; none: 400 No AI model configured. Cloud: the workspace's settings, else the
   * operator's; none: 500 AI is not configured for this workspace. (the request's key is
   * ignored there).
   */
  async providerFor(principal: Principal | undefined, request: RequestAiOptions): Promise<ReachableProvider> {
    const config = await this.#resolve(principal, request)
    return { ...config, fetch: guardedFetch(outboundPolicy(this.#ctx.config.outbound, { allowPrivate: this.#mayBePrivate(config, principal) })) }
  }

  /**
   * Whether a provider's requests may reach private addresses (loopback, the LAN, link-local…),
   * decided by who chose the address:
   * - the operator (FOLIO_AI_PROVIDER, OPENAI_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_HOST in the
   *   server's environment, or Ollama's default 127.0.0.1:11434): yes, it is the operator's
   *   choice (a local Ollama, a gateway on the LAN: the common OSS case);
   * - in OSS, the request's ollamaHost sent by the owner themself (the open local API or the
   *   key): yes, the owner of an OSS server is its operator;
   * - in OSS, an application the owner authorized with OAuth, and in Cloud a workspace's baseURL:
   *   only with FOLIO_AI_ALLOW_PRIVATE=1, or for a host in FOLIO_ALLOW_PRIVATE_HOSTS (the guard
   *   checks that list itself). Otherwise a workspace could make the server call the cloud's
   *   metadata address or a database on loopback.
   */
  #mayBePrivate(config: AiProviderConfig, principal: Principal | undefined): boolean {
    if (config.addressBy === 'operator' || this.#ctx.config.outbound.aiAllowPrivate) return true
    return this.#ctx.config.mode === 'oss' && principal?.via !== 'oauth'
  }

  /**
   * How web_fetch reaches the web: public addresses only, whatever the operator allows
   * providers (a page the model reads comes back to the user), at most 3 redirects.
   */
  webFetch(): GuardedFetch {
    return guardedFetch(
      outboundPolicy(this.#ctx.config.outbound, { allowPrivate: false, privateHosts: NO_PRIVATE_HOSTS, maxRedirects: WEB_FETCH_LIMITS.maxRedirects }),
    )
  }

  async #resolve(principal: Principal | undefined, request: RequestAiOptions): Promise<AiProviderConfig> {
    const env = this.#ctx.config.ai
    if (this.#ctx.config.mode === 'oss') {
      const config = resolveOssProvider(env, request)
      if (!config) {
        throw fail(
          ERRORS.noAiModel,
          'Set FOLIO_AI_PROVIDER (openai, anthropic or ollama) with OPENAI_API_KEY / OPENAI_BASE_URL, ANTHROPIC_API_KEY or OLLAMA_HOST where folio serve runs, or send apiKey and selectedModel with the request.',
        )
      }
      return config
    }
    const settings = principal ? await this.workspaceSettings(principal.workspaceId) : undefined
    if (settings && !settings.apiKey) {
      throw fail(
        ERRORS.aiNotConfigured,
        'The workspace’s AI key can no longer be read (the server’s FOLIO_AI_SECRET changed): an Owner or Admin sets it again with PUT /api/workspace/ai.',
      )
    }
    const config = resolveCloudProvider(
      env,
      settings && { provider: settings.provider, model: settings.model, baseURL: settings.baseURL, apiKey: settings.apiKey },
    )
    if (!config)
      throw fail(ERRORS.aiNotConfigured, 'An Owner or Admin sets a provider with PUT /api/workspace/ai, or the operator configures one for the server.')
    return config
  }
}
