import { APICallError, generateText, type ModelMessage, RetryError, stepCountIs, streamText, type ToolSet, type StepResult } from 'ai'
import { callSettings, modelFor } from './models.js'
import type { AiProviderConfig, ReachableProvider } from './provider-config.js'
import { CLIENT_TOOLS, summarise, type ToolCallReport } from './tools.js'

export interface GenerationInput {
  config: ReachableProvider
  system: string
  messages: ModelMessage[]
  tools?: ToolSet
  abortSignal?: AbortSignal
  maxOutputTokens?: number
}

export interface GenerationResult {
  /** Every step's text, joined (the SDK's `text` is the last step's only). */
  text: string
  toolCalls: ToolCallReport[]
  /** A client-side tool call the model waits on, with the messages to continue from. */
  pending?: { call: ToolCallReport; messages: ModelMessage[] }
  finishReason: string
}

/** A failure of the provider, said so that a person can act on it (never with the key). */
export class ProviderError extends Error {}

/** How many model round trips one request may take (tool calls in between). */
const MAX_STEPS = 6

/** What a whole answer and a streamed one ask the provider alike. */
const requestOf = (input: GenerationInput) => ({
  model: modelFor(input.config),
  system: input.system,
  messages: input.messages,
  tools: input.tools,
  stopWhen: stepCountIs(MAX_STEPS),
  abortSignal: input.abortSignal,
  ...callSettings(input.config, input.maxOutputTokens),
})

/** One whole answer (POST /ai, ai-create). */
export async function generate(input: GenerationInput): Promise<GenerationResult> {
  try {
    const result = await generateText(requestOf(input))
    return resultOf(input.messages, result.steps, result.response.messages, result.finishReason)
  } catch (error) {
    throw providerError(error, input.config)
  }
}

export interface StreamHandlers {
  onText: (delta: string) => void
  onToolCall?: (call: ToolCallReport) => void
}

/**
 * The same answer as it arrives (ai-stream): text deltas go to onText. Errors the SDK reports
 * inside the stream (error parts, an aborted request, a cut connection) all end in a throw.
 */
export async function generateStreaming(input: GenerationInput, handlers: StreamHandlers): Promise<GenerationResult> {
  let failure: unknown
  const stream = streamText({
    ...requestOf(input),
    // The default prints the error to the console; it is reported through the stream instead.
    onError: ({ error }) => {
      failure ??= error
    },
  })
  try {
    for await (const part of stream.fullStream) {
      if (part.type === 'text-delta') handlers.onText(part.text)
      else if (part.type === 'tool-call')
        handlers.onToolCall?.({ id: part.toolCallId, name: part.toolName, arguments: asObject(part.input), status: 'pending' })
      else if (part.type === 'error') failure ??= part.error
      else if (part.type === 'abort') failure ??= input.abortSignal?.reason ?? new Error('aborted')
    }
    if (failure !== undefined) throw failure
    const [steps, response, finishReason] = await Promise.all([stream.steps, stream.response, stream.finishReason])
    return resultOf(input.messages, steps, response.messages, finishReason)
  } catch (error) {
    throw providerError(error, input.config)
  }
}

function resultOf(sent: ModelMessage[], steps: Array<StepResult<ToolSet>>, responseMessages: ModelMessage[], finishReason: string): GenerationResult {
  const toolCalls: ToolCallReport[] = []
  for (const step of steps) {
    for (const call of step.toolCalls) {
      const done = step.toolResults.find((r) => r.toolCallId === call.toolCallId)
      const failed = step.content.find((c) => c.type === 'tool-error' && c.toolCallId === call.toolCallId)
      const report: ToolCallReport = {
        id: call.toolCallId,
        name: call.toolName,
        arguments: asObject(call.input),
        status: done ? 'done' : failed ? 'error' : 'pending',
      }
      if (done) report.result = summarise(done.output)
      if (failed && failed.type === 'tool-error') report.result = failed.error instanceof Error ? failed.error.message : String(failed.error)
      toolCalls.push(report)
    }
  }
  const waiting = toolCalls.find((c) => c.status === 'pending' && (CLIENT_TOOLS as readonly string[]).includes(c.name))
  return {
    text: steps
      .map((s) => s.text)
      .filter(Boolean)
      .join('\n\n'),
    toolCalls,
    pending: waiting ? { call: waiting, messages: [...sent, ...responseMessages] } : undefined,
    finishReason,
  }
}

const asObject = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value }

/** Whether the failure is the caller going away (or a deadline), not the provider. */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError' || error.name === 'ResponseAborted')
}

/** The provider's failure as a sentence: who failed, its status and its own message. */
export function providerError(error: unknown, config: AiProviderConfig): Error {
  if (error instanceof ProviderError || isAbort(error)) return error as Error
  const cause = RetryError.isInstance(error) ? error.lastError : error
  const who = `The AI provider (${config.provider}, model ${config.model})`
  // The outbound guard's own failures: "not a public address" or "could not be reached", never
  // the socket's or TLS's words (those stay in the error's detail, for the operator).
  const guard = guardFailure(cause)
  if (guard) return new ProviderError(`${who} could not be reached: ${guard.message}`)
  if (APICallError.isInstance(cause)) {
    const said = providerMessage(cause)
    if (cause.statusCode === 401 || cause.statusCode === 403) return new ProviderError(`${who} refused the credentials (${cause.statusCode}): ${said}`)
    if (cause.statusCode === 429) return new ProviderError(`${who} is rate limiting (429): ${said}. Try again later.`)
    // A 2xx whose body broke off: the connection was cut mid-answer ("terminated").
    if (cause.statusCode && cause.statusCode < 300 && cause.cause instanceof Error && cause.cause.message === 'terminated')
      return new ProviderError(`${who} broke off mid-answer: the connection was cut.`)
    if (cause.statusCode) return new ProviderError(`${who} answered ${cause.statusCode}: ${said}`)
    // No answer at all: the SDK's message would be the socket's words ("Cannot connect to API: …").
    return new ProviderError(`${who} could not be reached or broke off.`)
  }
  if (cause && typeof cause === 'object' && !(cause instanceof Error)) {
    // In-stream error frames arrive as the provider's plain error object.
    const o = cause as { error?: { message?: unknown }; message?: unknown }
    const said = typeof o.error?.message === 'string' ? o.error.message : typeof o.message === 'string' ? o.message : JSON.stringify(cause).slice(0, 300)
    return new ProviderError(`${who} reported an error: ${said}`)
  }
  const message = cause instanceof Error ? cause.message : String(cause)
  return new ProviderError(`${who} failed: ${message === 'terminated' ? 'the connection was cut' : message}`)
}

/** An error of the server's outbound guard (server/http/outbound-guard.ts), anywhere in the cause chain. */
function guardFailure(error: unknown): Error | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'OutboundRefused' || e.name === 'OutboundUnreachable') return e
  }
  return undefined
}

/** Ollama answers {"error": "…"}, which the provider does not read: take it from the body. */
function providerMessage(error: APICallError): string {
  try {
    const body = JSON.parse(error.responseBody ?? '') as { error?: unknown }
    if (typeof body.error === 'string') return body.error.slice(0, 300)
    if (body.error && typeof body.error === 'object' && typeof (body.error as { message?: unknown }).message === 'string')
      return (body.error as { message: string }).message.slice(0, 300)
  } catch {
    // not JSON: the SDK's own message says enough
  }
  return error.message.slice(0, 300)
}
