import type { Command } from 'commander'
import { createTwoFilesPatch } from 'diff'
import { aiConversation, aiStream } from '../../api/ai.js'
import { ERRORS } from '../../api/errors.js'
import { getFolio } from '../../api/files.js'
import { readEventStream } from '../../client/event-stream.js'
import { ApiClientError } from '../../client/index.js'
import { confirm } from '../confirm.js'
import { type CliContext, withContext } from '../context.js'
import { CliError, EXIT, UsageError } from '../errors.js'

export interface AiOptions {
  yes?: boolean
  model?: string
  /** The environment variable that holds the provider key (never the key itself: argv shows in ps and shell history). */
  apiKeyEnv?: string
  file?: string
}

/** The provider key from the variable --api-key-env names. Messages never echo a value: it may be the key typed by mistake. */
function keyFromEnvironment(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new UsageError(
      '--api-key-env takes the name of an environment variable that holds the provider key (e.g. --api-key-env OPENAI_API_KEY), not the key itself.',
    )
  }
  const key = process.env[name]?.trim()
  if (!key) throw new UsageError(`${name} is not set (or empty) in this environment: put the provider key in it, or name the variable that holds it.`)
  return key
}

/** The server has no model and the request named none: say how to bring one with this command's own options. */
function noModel(ctx: CliContext, id: string, error: unknown): unknown {
  if (!(error instanceof ApiClientError) || error.error !== ERRORS.noAiModel.error) return error
  return new CliError(
    `No AI model configured on ${ctx.server}. Bring your own: folio ai ${id} "…" --model openai:gpt-4.1-mini --api-key-env OPENAI_API_KEY (--model picks the provider and model, e.g. anthropic:claude-sonnet-4-5 or ollama:llama3.2; --api-key-env names the variable holding your key). Or configure one where folio serve runs: FOLIO_AI_PROVIDER with OPENAI_API_KEY / OPENAI_BASE_URL, ANTHROPIC_API_KEY or OLLAMA_HOST.`,
    EXIT.failed,
    error.error,
  )
}

/** The done event's result (POST /ai's answer). */
interface TurnResult {
  explanation: string
  isProposal?: boolean
  proposedFiles?: Record<string, string>
  changedFiles?: string[]
  toolCalls?: Array<{ name: string; status: string; arguments: Record<string, unknown> }>
}

export default (id: string, promptWords: string[], options: AiOptions, command: Command) =>
  withContext(command, async (ctx) => {
    const userPrompt = promptWords.join(' ')
    const apiKey = options.apiKeyEnv !== undefined ? keyFromEnvironment(options.apiKeyEnv) : undefined
    const before = await ctx.client.call(getFolio, { params: { id }, query: { files: 'latest' } })
    const base = before.versions.at(-1)?.files ?? {}
    const result = await streamTurn(ctx, id, {
      userPrompt,
      selectedModel: options.model,
      ...(apiKey ? { apiKey } : {}),
      ...(options.file ? { pageContext: 'Current Screen' as const, activeFilename: options.file } : {}),
    }).catch((error: unknown) => {
      throw noModel(ctx, id, error)
    })
    const pendingQuestion = result.toolCalls?.find((c) => c.status === 'pending')
    if (pendingQuestion)
      throw new CliError(`The model asks: ${String(pendingQuestion.arguments.question ?? result.explanation)} Answer it in your next folio ai prompt.`)
    const proposed = result.proposedFiles ?? {}
    const changed = result.changedFiles ?? Object.keys(proposed).filter((path) => proposed[path] !== base[path])
    const diff = changed
      .map((path) => createTwoFilesPatch(`a/${path}`, `b/${path}`, base[path] ?? '', proposed[path] ?? '', undefined, undefined, { context: 3 }))
      .join('')
    if (!changed.length) {
      ctx.print({ explanation: result.explanation, changedFiles: [], committed: false }, () => 'The model changed nothing.')
      return
    }
    if (!ctx.json) process.stderr.write(`\n${colourDiff(diff)}\n`)
    const commit =
      options.yes || (!ctx.json && (await confirm(`Commit ${changed.length} changed file(s) as a new version?`, 'Pass --yes to commit without asking.')))
    if (!commit) {
      ctx.print({ explanation: result.explanation, changedFiles: changed, proposedFiles: proposed, diff, committed: false }, () => 'Not committed.')
      return
    }
    const done = await ctx.client.call(aiConversation, {
      params: { id },
      body: { action: 'commit-proposal', proposedFiles: proposed, proposedExplanation: result.explanation.split('\n')[0] || userPrompt },
    })
    ctx.print(
      { explanation: result.explanation, changedFiles: changed, diff, committed: true, versionId: done.newVersionId },
      () => `Committed ${done.newVersionId} (${changed.join(', ')}).`,
    )
  })

/**
 * POST ai-stream: status lines and the explanation as it arrives go to stderr (people); the
 * files the model writes are not echoed (the diff shows them). Resolves with the done result.
 */
async function streamTurn(ctx: CliContext, id: string, body: Record<string, unknown>): Promise<TurnResult> {
  const response = await ctx.client.request(aiStream, { params: { id }, json: body as never, signal: new AbortController().signal })
  if (!response.ok) {
    // The refusal (400, 402, 404, 500) as the client's usual error, which withContext explains.
    const refusal = (await response.json().catch(() => ({}))) as { error?: string; message?: string }
    throw new ApiClientError(response.status, refusal.error ?? `HTTP ${response.status}`, refusal.message, response.headers)
  }
  let text = ''
  let shown = 0
  const show = (final = false) => {
    // Echo the explanation: everything before the first block of files or metadata.
    const cut = text.search(/<folio-(file|meta)/)
    const visible = cut === -1 ? text.slice(0, final ? text.length : Math.max(shown, text.length - 12)) : text.slice(0, cut)
    if (!ctx.json && visible.length > shown) process.stderr.write(visible.slice(shown))
    shown = Math.max(shown, visible.length)
  }
  for await (const message of readEventStream(response.body!)) {
    if (message.type !== 'event') continue
    const event = JSON.parse(message.data) as { type: string; message?: string; text?: string } & TurnResult
    if (event.type === 'status') ctx.note(event.message ?? '')
    else if (event.type === 'chunk') {
      text += event.text ?? ''
      show()
    } else if (event.type === 'error') throw new CliError(event.message ?? 'The AI request failed.')
    else if (event.type === 'done') {
      show(true)
      if (!ctx.json) process.stderr.write('\n')
      return event
    }
  }
  throw new CliError('The server ended the AI stream without a result; nothing was proposed.')
}

function colourDiff(diff: string): string {
  if (!process.stderr.isTTY) return diff
  return diff
    .split('\n')
    .map((line) =>
      line.startsWith('+') && !line.startsWith('+++')
        ? `\x1b[32m${line}\x1b[0m`
        : line.startsWith('-') && !line.startsWith('---')
          ? `\x1b[31m${line}\x1b[0m`
          : line,
    )
    .join('\n')
}
