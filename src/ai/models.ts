import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import type { LanguageModel } from 'ai'
import { createOllama } from 'ollama-ai-provider-v2'
import type { AiProviderConfig, ReachableProvider } from './provider-config.js'

/**
 * The one place a configuration becomes a model of the Vercel AI SDK. Every option is passed
 * explicitly: left undefined, the OpenAI and Anthropic factories read OPENAI_* / ANTHROPIC_*
 * from process.env themselves, which in Cloud would hand the operator's key to a workspace; and
 * every request goes through the server's outbound guard (config.fetch), never the global fetch.
 */
export function modelFor(config: ReachableProvider): LanguageModel {
  const { fetch } = config
  switch (config.provider) {
    case 'openai':
      // .chat(): Chat Completions, what OpenAI-compatible servers (vLLM, LM Studio, llama.cpp,
      // OpenRouter) implement; the default would be OpenAI's newer Responses API.
      return createOpenAI({ baseURL: config.baseURL, apiKey: config.apiKey ?? '', fetch }).chat(config.model)
    case 'anthropic':
      return createAnthropic({ baseURL: config.baseURL, apiKey: config.apiKey ?? '', fetch })(config.model)
    case 'ollama':
      return createOllama({ baseURL: config.baseURL, fetch })(config.model)
  }
}

/** How many tokens a generation may produce: whole HTML files are long. */
export const MAX_OUTPUT_TOKENS = 16_000

/**
 * Settings every call carries. Ollama reads its limits from `options` only (its ChatRequest
 * ignores the top-level fields the provider also sends).
 */
export function callSettings(config: AiProviderConfig, maxOutputTokens = MAX_OUTPUT_TOKENS) {
  return {
    maxOutputTokens,
    // One attempt: a retry of a long generation doubles the wait; the caller may ask again.
    maxRetries: 0,
    ...(config.provider === 'ollama' ? { providerOptions: { ollama: { options: { num_predict: maxOutputTokens, num_ctx: 32_768 } } } } : {}),
  }
}
// The SDK prints warnings (unsupported settings, unknown model ids) with console.warn, which
// would land in the server's output and the CLI's terminal: they are not the user's concern.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false
