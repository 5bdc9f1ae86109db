import { aiConversation, aiCreate } from '../../api/ai.js'
import { ERRORS } from '../../api/errors.js'
import { createFolio, deleteFolio } from '../../api/files.js'
import { ApiClientError } from '../../client/index.js'
import { type CliContext, shareUrl } from '../context.js'
import { CliError, UsageError } from '../errors.js'
import type { ProjectMode } from '../../domain/model.js'

/** What folio create's options say about a folio written by AI. */
export interface PromptOptions {
  prompt?: string
  publish?: boolean
  description?: string
  mode?: ProjectMode
}

/**
 * folio create --prompt: Cloud has POST /api/files/ai-create. OSS has not (403): there the folio
 * starts from its mode's starter page and the model rewrites it at once (POST /ai with
 * executeImmediately); without a model the folio is removed again and the server's message says
 * how to configure one.
 */
export async function createFromPrompt(ctx: CliContext, title: string | undefined, options: PromptOptions): Promise<void> {
  const prompt = options.prompt!.trim()
  if (!prompt) throw new UsageError('--prompt needs a description of the folio, e.g. --prompt "a deck about otters".')
  const status = options.publish ? ('published' as const) : ('draft' as const)
  ctx.note('Asking the AI model to write the folio…')
  try {
    const { project } = await ctx.client.call(aiCreate, { body: { prompt, title, status } }, 600_000)
    return report(ctx, project.id, project.title, status)
  } catch (error) {
    if (!(error instanceof ApiClientError && error.status === 403 && error.error === ERRORS.cloudOnly.error)) throw error
  }
  const folioTitle = title ?? (prompt.length > 60 ? `${prompt.slice(0, 59)}…` : prompt)
  const { project } = await ctx.client.call(createFolio, { body: { title: folioTitle, description: options.description, projectMode: options.mode, status } })
  try {
    await ctx.client.call(
      aiConversation,
      { params: { id: project.id }, body: { userPrompt: `Write this folio from scratch, replacing the starter page: ${prompt}`, executeImmediately: true } },
      600_000,
    )
  } catch (error) {
    await ctx.client.call(deleteFolio, { params: { id: project.id } }).catch(() => undefined)
    if (error instanceof ApiClientError && error.error === ERRORS.noAiModel.error)
      throw new CliError(`No AI model configured on ${ctx.server}. ${error.detail ?? ''}`.trim())
    throw error
  }
  report(ctx, project.id, folioTitle, status)
}

function report(ctx: CliContext, id: string, title: string, status: string): void {
  const url = shareUrl(ctx, id)
  ctx.print({ id, title, url, status }, () => `Created ${id} “${title}” (${status}) with AI\nShare: ${url}`)
}
