import { EventStream, type H3Event } from 'h3'
import { ERRORS } from '../../api/errors.js'
import type { Principal } from '../../domain/principal.js'
import type { AiService } from './ai-service.js'
import { finishTurn, type PreparedTurn } from './ai-turn.js'
import type { ServerContext } from '../context.js'
import { ApiError } from '../http/errors.js'
import type { ServerResponse } from 'node:http'

/** What this file takes from the server's context. */
export type AiStreamDeps = Pick<ServerContext, 'auth' | 'config' | 'log' | 'shared' | 'store' | 'templates' | 'viewerAccess'>

/** A plan is short: a few bullet points. */
const PLAN_TOKENS = 1_000

/**
 * POST /ai-stream once the turn is prepared: Server-Sent Events `data: {type, …}`, in this
 * order: status planning (stage one asks the model for a plan), status generating, chunk {text}
 * as the answer arrives, then done {explanation, …the result} or error {message}. The client
 * hanging up aborts the provider request; nothing is committed after that.
 */
export function streamTurn(ctx: AiStreamDeps, ai: AiService, event: H3Event, principal: Principal | undefined, turn: PreparedTurn): EventStream {
  const stream = new EventStream(event)
  const abort = new AbortController()
  let closed = false
  const hangUp = () => {
    if (closed) return
    closed = true
    abort.abort(Object.assign(new Error('The client closed the stream.'), { name: 'AbortError' }))
  }
  stream.onClosed(hangUp)
  onHangUp(event, hangUp)
  const send = (data: object) => {
    if (!closed) void stream.push(JSON.stringify(data)).catch(hangUp)
  }

  void (async () => {
    const m = await ai.module()
    try {
      send({ type: 'status', stage: 'planning', message: 'Planning the change' })
      const plan = await m.generate({
        config: turn.config,
        system: turn.system,
        messages: m.planningMessages(turn.messages),
        abortSignal: abort.signal,
        maxOutputTokens: PLAN_TOKENS,
      })
      send({ type: 'status', stage: 'generating', message: 'Writing the files', plan: plan.text.trim() })
      const result = await m.generateStreaming(
        {
          config: turn.config,
          system: turn.system,
          messages: m.afterPlanMessages(turn.messages, plan.text.trim()),
          tools: turn.tools,
          abortSignal: abort.signal,
        },
        {
          onText: (text) => send({ type: 'chunk', text }),
          onToolCall: (call) => send({ type: 'status', stage: 'generating', message: `Calling ${call.name}`, toolCall: call }),
        },
      )
      // A stream cut before the end commits nothing.
      if (abort.signal.aborted) return
      send({ type: 'done', ...(await finishTurn(ctx, ai, principal, turn, result)) })
    } catch (error) {
      if (closed || m.isAbort(error)) return
      send({ type: 'error', message: streamErrorMessage(ctx, error, m.ProviderError) })
    } finally {
      void stream.close()
    }
  })()
  return stream
}

function streamErrorMessage(ctx: AiStreamDeps, error: unknown, providerError: new (...args: never[]) => Error): string {
  if (error instanceof ApiError) return error.detail ? `${error.error} ${error.detail}` : error.error
  if (error instanceof providerError) return `${ERRORS.aiFailed.error} ${error.message}`
  ctx.log('AI stream failed', error)
  return 'The server failed while generating; it has been logged.'
}

/**
 * Calls `then` when the response's connection closes (the client went away) or the response
 * ends. The response's own 'close', not the socket's: a kept-alive socket serves many requests,
 * and listeners on it would pile up.
 */
export function onHangUp(event: H3Event, then: () => void): void {
  const res = (event.req as { runtime?: { node?: { res?: ServerResponse } } }).runtime?.node?.res
  res?.once('close', then)
}

/** An AbortSignal that fires when the client goes away (POST /ai: the provider call stops too). */
export function hangUpSignal(event: H3Event): AbortSignal {
  const controller = new AbortController()
  onHangUp(event, () => controller.abort(Object.assign(new Error('The client closed the connection.'), { name: 'AbortError' })))
  return controller.signal
}
