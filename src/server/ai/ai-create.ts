import type { z } from 'zod'
import type { AiCreateBody } from '../../api/ai.js'
import { ERRORS } from '../../api/errors.js'
import { pageDefaults } from '../../domain/content-defaults.js'
import { LOCAL_WORKSPACE } from '../auth/auth.js'
import type { Principal } from '../../domain/principal.js'
import { chargeAiMessage } from '../limits/ai-quota.js'
import type { AiService } from './ai-service.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { authorOf } from '../auth/folio-access.js'
import { withinStorage } from '../limits/storage-quota.js'

/** What this file takes from the server's context. */
export type AiCreateDeps = Pick<ServerContext, 'auth' | 'config' | 'shared' | 'store' | 'templates' | 'viewerAccess'>

/** A title from the prompt itself, when the model gave none. */
const titleFrom = (prompt: string) => {
  const line = prompt.split('\n')[0]!.trim()
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}

/**
 * POST /api/files/ai-create (Cloud): the model picks the mode, a title and a description and
 * writes index.html; the folio is created with that as its first version. No usable
 * index.html: 500 AI failed to generate HTML content., and nothing is created.
 */
export async function createFromPrompt(ctx: AiCreateDeps, ai: AiService, principal: Principal | undefined, body: z.output<typeof AiCreateBody>) {
  const config = await ai.providerFor(principal, {})
  const m = await ai.module()
  const prompt = body.prompt
  const designSystem = m.designSystemText(undefined, body.designPreferences ?? {}, await ctx.templates.designSystems())
  const context = {
    title: body.title ?? '',
    projectMode: 'deck' as const,
    designSystem,
    files: {},
    allPaths: [],
    attachedFiles: [],
    referenceFiles: m.namedTexts(body.referenceFiles, 'Reference'),
    history: [],
    prompt: body.title ? `${prompt}\n\nThe title is ${JSON.stringify(body.title)}.` : prompt,
  }
  await chargeAiMessage(ctx, principal)
  let text: string
  try {
    text = (await m.generate({ config, system: m.systemPrompt(context, { tools: [], create: true }), messages: m.conversationMessages(context) })).text
  } catch (error) {
    if (error instanceof m.ProviderError) throw fail(ERRORS.aiFailed, error.message)
    throw error
  }
  let files: Record<string, string>
  let output: ReturnType<typeof m.parseModelOutput>
  try {
    output = m.parseModelOutput(text)
    files = m.mergeProposal({}, output).files
  } catch (error) {
    if (error instanceof m.UnusableOutputError) throw fail(ERRORS.aiFailed, error.message)
    throw error
  }
  if (files['index.html'] === undefined) throw fail(ERRORS.aiFailed, 'The model wrote no index.html.')
  // What the model left out of its <folio-meta> is read from the page it wrote (issue 26).
  const page = pageDefaults(files['index.html'])
  const title = body.title ?? output.meta?.title ?? page.title ?? titleFrom(prompt)
  const { meta } = await withinStorage(ctx, principal, Object.values(files), () =>
    ctx.store.folios.create({
      meta: {
        workspaceId: principal?.workspaceId ?? LOCAL_WORKSPACE,
        title,
        description: output.meta?.description ?? page.description ?? output.explanation.split('\n')[0]?.slice(0, 500) ?? '',
        isPrivate: body.isPrivate ?? false,
        accessKey: body.accessKey ?? '',
        allowComments: body.allowComments ?? true,
        presentationModeOnly: body.presentationModeOnly ?? false,
        commentModeration: 'anyone',
        status: body.status ?? 'draft',
        projectMode: output.meta?.projectMode ?? page.projectMode ?? 'deck',
        collaborators: [],
        designPreferences: body.designPreferences ?? {},
        referenceFiles: body.referenceFiles ?? [],
        publicTunnelEnabled: false,
      },
      files,
      commitMessage: 'Created with AI',
      author: authorOf(ctx, principal),
    }),
  )
  const now = new Date().toISOString()
  await ai.records.updateChat(meta.id, () => ({
    turns: [
      { role: 'user', content: prompt, createdAt: now },
      { role: 'assistant', content: output.explanation || 'Created the folio.', createdAt: now },
    ],
  }))
  return { project: { id: meta.id, title: meta.title, description: meta.description, projectMode: meta.projectMode, createdAt: meta.createdAt } }
}
