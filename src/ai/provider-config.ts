/**
 * Which model folio talks to, decided from three sources: the request (OSS only: the caller's
 * own key, model and Ollama host, never stored or logged), a Cloud workspace's settings, and the
 * operator's environment. Pure: the caller passes the environment, so tests never see a
 * developer's shell variables.
 */

export const AI_PROVIDERS = ['openai', 'anthropic', 'ollama'] as const
export type AiProviderName = (typeof AI_PROVIDERS)[number]

/** Everything needed to reach one model. */
export interface AiProviderConfig {
  provider: AiProviderName
  model: string
  /** openai / anthropic: the key (a keyless local OpenAI-compatible server gets a placeholder). */
  apiKey?: string
  /** The API's base URL as the provider library wants it (…/v1, …/api). */
  baseURL: string
  /** Where the configuration came from: the message of a failure names it, never the key. */
  source: 'request' | 'workspace' | 'environment'
  /**
   * Who chose baseURL: the operator (the environment, or the vendor's or Ollama's default) or the
   * caller (a request's ollamaHost in OSS, a Cloud workspace's baseURL). Only the operator's
   * choice may be a private address without the operator's allowance (server/ai/ai-service.ts).
   */
  addressBy: 'operator' | 'caller'
}

/** What a provider's requests go through: the server's outbound guard (a fetch). */
export type ProviderFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** A configuration ready to be called: the server has decided which addresses its requests may reach. */
export interface ReachableProvider extends AiProviderConfig {
  fetch: ProviderFetch
}

/** The environment variables folio reads for AI (ServerConfig.ai holds this subset). */
export const AI_ENV_NAMES = [
  'FOLIO_AI_PROVIDER',
  'FOLIO_AI_MODEL',
  'FOLIO_AI_TOOLS',
  'FOLIO_AI_SECRET',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'OLLAMA_HOST',
] as const
export type AiEnvironment = Partial<Record<(typeof AI_ENV_NAMES)[number], string>>

export function aiEnvironment(env: Record<string, string | undefined>): AiEnvironment {
  const out: AiEnvironment = {}
  for (const name of AI_ENV_NAMES) if (env[name]?.trim()) out[name] = env[name]!.trim()
  return out
}

/** Models used when only a provider is named: current, capable and widely available. */
export const DEFAULT_MODELS: Record<AiProviderName, string> = {
  openai: 'gpt-4.1-mini',
  anthropic: 'claude-sonnet-4-5',
  ollama: 'llama3.2',
}

const OPENAI_DEFAULT_BASE = 'https://api.openai.com/v1'
const ANTHROPIC_DEFAULT_BASE = 'https://api.anthropic.com/v1'
/** A keyless local server (llama.cpp, LM Studio, vLLM) still gets an Authorization header from the SDK. */
const NO_KEY = 'not-needed'

/**
 * Follows Ollama's own OLLAMA_HOST parsing: scheme optional (http), and without a scheme the
 * port defaults to 11434. The provider wants the /api prefix in its base URL.
 */
export function ollamaApiBase(host: string | undefined): string {
  const raw = (host ?? '').trim().replace(/^["']|["']$/g, '')
  if (!raw) return 'http://127.0.0.1:11434/api'
  const hasScheme = /^[a-z]+:\/\//i.test(raw)
  const url = new URL(hasScheme ? raw : `http://${raw}`)
  if (!hasScheme && !url.port) url.port = '11434'
  return `${url.origin}/api`
}

/** ANTHROPIC_BASE_URL, as the official SDK uses it, has no /v1; the AI SDK appends only /messages. */
export function anthropicApiBase(base: string | undefined): string {
  const raw = base?.trim().replace(/\/+$/, '')
  if (!raw) return ANTHROPIC_DEFAULT_BASE
  return raw.endsWith('/v1') ? raw : `${raw}/v1`
}

export const isAiProvider = (value: string | undefined): value is AiProviderName => AI_PROVIDERS.includes(value as AiProviderName)

/** "anthropic:claude-sonnet-4-5" names its provider; "llama3.2:3b" or "openai/gpt-4o" (OpenRouter) do not. */
export function splitModel(selected: string | undefined): { provider?: AiProviderName; model?: string } {
  const value = selected?.trim()
  if (!value) return {}
  const colon = value.indexOf(':')
  const prefix = colon > 0 ? value.slice(0, colon) : undefined
  if (isAiProvider(prefix) && colon < value.length - 1) return { provider: prefix, model: value.slice(colon + 1) }
  return { model: value }
}

export interface RequestAiOptions {
  apiKey?: string
  selectedModel?: string
  ollamaHost?: string
}

/**
 * A workspace's own provider settings (Cloud), its key already decrypted. No Ollama: a host
 * there would be the server calling into its own network for the workspace.
 */
export interface WorkspaceAiSettings {
  provider: 'openai' | 'anthropic'
  model?: string
  apiKey?: string
  baseURL?: string
}

/**
 * OSS: the request's choices over the environment. The provider is the first of: a prefix of
 * selectedModel, FOLIO_AI_PROVIDER, the request's ollamaHost, the key's shape (sk-ant-… is
 * Anthropic's), then whichever provider the environment configures. Undefined: none at all.
 */
export function resolveOssProvider(env: AiEnvironment, request: RequestAiOptions = {}): AiProviderConfig | undefined {
  const selected = splitModel(request.selectedModel)
  const source = request.apiKey || request.selectedModel || request.ollamaHost ? 'request' : 'environment'
  const envProvider = isAiProvider(env.FOLIO_AI_PROVIDER) ? env.FOLIO_AI_PROVIDER : undefined
  const provider =
    selected.provider ??
    envProvider ??
    (request.ollamaHost ? 'ollama' : undefined) ??
    (request.apiKey ? (request.apiKey.startsWith('sk-ant-') ? 'anthropic' : 'openai') : undefined) ??
    (env.OPENAI_API_KEY || env.OPENAI_BASE_URL ? 'openai' : env.ANTHROPIC_API_KEY ? 'anthropic' : env.OLLAMA_HOST ? 'ollama' : undefined)
  if (!provider) return undefined
  const model = selected.model ?? env.FOLIO_AI_MODEL ?? DEFAULT_MODELS[provider]
  switch (provider) {
    case 'openai': {
      const apiKey = request.apiKey ?? env.OPENAI_API_KEY
      // OpenAI itself needs a key; a server of one's own (OPENAI_BASE_URL) may not.
      if (!apiKey && !env.OPENAI_BASE_URL) return undefined
      return { provider, model, apiKey: apiKey ?? NO_KEY, baseURL: env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE, source, addressBy: 'operator' }
    }
    case 'anthropic': {
      const apiKey = request.apiKey ?? env.ANTHROPIC_API_KEY
      if (!apiKey) return undefined
      return { provider, model, apiKey, baseURL: anthropicApiBase(env.ANTHROPIC_BASE_URL), source, addressBy: 'operator' }
    }
    case 'ollama':
      return { provider, model, baseURL: ollamaApiBase(request.ollamaHost ?? env.OLLAMA_HOST), source, addressBy: request.ollamaHost ? 'caller' : 'operator' }
  }
}

/**
 * Cloud: the workspace's own settings, else the operator's environment (requests may not bring
 * keys or hosts there: the server would call out on their behalf). Undefined: not configured.
 */
export function resolveCloudProvider(env: AiEnvironment, workspace: WorkspaceAiSettings | undefined): AiProviderConfig | undefined {
  if (workspace) {
    const { provider } = workspace
    const model = workspace.model ?? DEFAULT_MODELS[provider]
    if (!workspace.apiKey) return undefined
    // Without a base URL of its own, the workspace goes where the operator's provider goes (a
    // gateway, say), else to the vendor.
    const baseURL =
      provider === 'openai' ? (workspace.baseURL ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE) : anthropicApiBase(workspace.baseURL ?? env.ANTHROPIC_BASE_URL)
    return { provider, model, apiKey: workspace.apiKey, baseURL, source: 'workspace', addressBy: workspace.baseURL ? 'caller' : 'operator' }
  }
  return resolveOssProvider(env)
}

/** FOLIO_AI_TOOLS=off for models that refuse tool definitions (some small local ones). */
export const toolsEnabled = (env: AiEnvironment) => !/^(0|off|false|no)$/i.test(env.FOLIO_AI_TOOLS ?? '')
