import type { ModelMessage, ToolSet } from 'ai'
import type { z } from 'zod'
import type { AiConversationBody, AiStreamBody } from '../../api/ai.js'
import type { Folio } from '../../api/schemas.js'
import { ERRORS } from '../../api/errors.js'
import type { ToolCallReport } from '../../ai/tools.js'
import type { GenerationResult } from '../../ai/generation.js'
import { type ReachableProvider, toolsEnabled } from '../../ai/provider-config.js'
import { versionId, versionNumber } from '../../domain/ids.js'
import type { FolioMeta } from '../../domain/model.js'
import type { Principal } from '../../domain/principal.js'
import type { StoredChat } from '../../store/repositories/ai-records.js'
import { chargeAiMessage } from '../limits/ai-quota.js'
import type { AiService } from './ai-service.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { authorOf, requireFolio } from '../auth/folio-access.js'
import { withinStorage } from '../limits/storage-quota.js'

/** What this file takes from the server's context. */
export type AiTurnDeps = Pick<ServerContext, 'auth' | 'config' | 'shared' | 'store' | 'templates' | 'viewerAccess'>

export type TurnBody = z.output<typeof AiStreamBody>
export type AiBody = z.output<typeof AiConversationBody>

/** Everything a generation needs, gathered and checked before the provider is called. */
export interface PreparedTurn {
  meta: FolioMeta
  config: ReachableProvider
  baseVersionId: string
  baseFiles: Record<string, string>
  /** Where a bare HTML answer goes: the file in view, else index.html. */
  fallbackPath: string
  system: string
  messages: ModelMessage[]
  tools?: ToolSet
  /** What the user asked (kept in the conversation) and all they wrote (web_fetch's allowance). */
  userPrompt: string
  userText: string
  executeImmediately: boolean
  author: string
}

/** What a turn answers (POST /ai, and the done event of ai-stream). */
export interface TurnResponse {
  success: true
  explanation: string
  isProposal?: boolean
  proposedFiles?: Record<string, string>
  changedFiles?: string[]
  newVersionId?: string
  project?: z.input<typeof Folio>
  toolCalls?: ToolCallReport[]
}

/** The conversation state kept while the model waits on a client-side tool. */
interface PendingTurn {
  toolCallId: string
  toolName: string
  messages: ModelMessage[]
  system: string
  baseVersionId: string
  fallbackPath: string
  userPrompt: string
  userText: string
  executeImmediately: boolean
  simulatedAuthor?: string
}

async function versionFiles(
  ctx: AiTurnDeps,
  meta: FolioMeta,
  requested: string | undefined,
): Promise<{ baseVersionId: string; files: Record<string, string> }> {
  const n = requested === undefined ? meta.head : versionNumber(requested)
  const manifest = n !== undefined && n >= 1 && n <= meta.head ? await ctx.store.folios.manifest(meta.id, n) : undefined
  if (!manifest) throw fail(ERRORS.versionNotFound, `${requested} is not a version of this folio (it has v1 to v${meta.head}).`)
  return { baseVersionId: versionId(n!), files: await ctx.store.folios.readFiles(meta.id, manifest) }
}

/**
 * A conversational turn, ready to send: the folio and the provider checked, the version read,
 * the prompt built, and (Cloud) one AI message charged, in that order, so a request refused for
 * any reason costs no quota.
 */
export async function prepareTurn(ctx: AiTurnDeps, ai: AiService, id: string, principal: Principal | undefined, body: TurnBody): Promise<PreparedTurn> {
  const meta = await requireFolio(ctx, id, principal)
  const config = await ai.providerFor(principal, body)
  const { baseVersionId, files } = await versionFiles(ctx, meta, body.targetVersionId)
  const m = await ai.module()
  const stored = await ai.records.chat(meta.id)
  const history = body.chatHistory ? m.chatTurns(body.chatHistory) : stored.turns.map(({ role, content }) => ({ role, content }))
  const currentScreen = body.pageContext === 'Current Screen'
  const activeFilename = body.activeFilename && files[body.activeFilename] !== undefined ? body.activeFilename : undefined
  if (currentScreen && body.activeFilename && !activeFilename)
    throw fail(ERRORS.invalidBody, `activeFilename ${JSON.stringify(body.activeFilename)} is not a file of ${baseVersionId}.`)
  const focusFile = currentScreen ? (activeFilename ?? (files['index.html'] !== undefined ? 'index.html' : Object.keys(files)[0])) : undefined
  const userPrompt = body.userPrompt!.trim()
  const userText = [userPrompt, ...history.filter((t) => t.role === 'user').map((t) => t.content)].join('\n')
  const useTools = toolsEnabled(ctx.config.ai)
  const context = {
    title: meta.title,
    projectMode: meta.projectMode,
    designSystem: m.designSystemText(body.designSystem, meta.designPreferences, await ctx.templates.designSystems()),
    files: focusFile ? { [focusFile]: files[focusFile]! } : files,
    allPaths: Object.keys(files),
    focus: focusFile ? { filename: focusFile, targetedElement: body.targetedElement } : undefined,
    attachedFiles: m.namedTexts(body.attachedFiles, 'Attachment'),
    referenceFiles: m.namedTexts(meta.referenceFiles, 'Reference'),
    history,
    prompt: userPrompt,
  }
  const tools = useTools ? m.folioTools({ files, userText, fetch: ai.webFetch() }) : undefined
  const prepared: PreparedTurn = {
    meta,
    config,
    baseVersionId,
    baseFiles: files,
    fallbackPath: focusFile ?? 'index.html',
    system: m.systemPrompt(context, { tools: tools ? Object.keys(tools) : [] }),
    messages: m.conversationMessages(context),
    tools,
    userPrompt,
    userText,
    executeImmediately: body.executeImmediately ?? false,
    author: body.simulatedAuthor?.trim() || authorOf(ctx, principal),
  }
  await chargeAiMessage(ctx, principal)
  return prepared
}

/** The tool-response action: the client's answer to the pending call, and the turn continued. */
export async function prepareToolResponse(ctx: AiTurnDeps, ai: AiService, id: string, principal: Principal | undefined, body: AiBody): Promise<PreparedTurn> {
  const meta = await requireFolio(ctx, id, principal)
  const chat = await ai.records.chat(meta.id)
  const pending = chat.pending as (PendingTurn & StoredChat['pending']) | undefined
  if (!pending || pending.toolCallId !== body.toolCallId)
    throw fail(ERRORS.invalidBody, `No tool call ${body.toolCallId} is waiting for an answer in this folio’s conversation.`)
  const config = await ai.providerFor(principal, body)
  const { baseVersionId, files } = await versionFiles(ctx, meta, pending.baseVersionId)
  const m = await ai.module()
  const answer: ModelMessage = {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: pending.toolCallId,
        toolName: pending.toolName,
        output: typeof body.result === 'string' ? { type: 'text', value: body.result } : { type: 'json', value: (body.result ?? null) as never },
      },
    ],
  }
  const prepared: PreparedTurn = {
    meta,
    config,
    baseVersionId,
    baseFiles: files,
    fallbackPath: pending.fallbackPath,
    system: pending.system,
    messages: [...pending.messages, answer],
    tools: toolsEnabled(ctx.config.ai) ? m.folioTools({ files, userText: pending.userText, fetch: ai.webFetch() }) : undefined,
    userPrompt: pending.userPrompt,
    userText: pending.userText,
    executeImmediately: body.executeImmediately ?? pending.executeImmediately,
    author: body.simulatedAuthor?.trim() || pending.simulatedAuthor || authorOf(ctx, principal),
  }
  await chargeAiMessage(ctx, principal)
  return prepared
}

/**
 * The model's answer as the API's result: a pending client-side tool call is kept and reported;
 * otherwise the files are checked and merged into a proposal, or committed with executeImmediately.
 * The conversation gains the user's request and the explanation (never the files: they are
 * the folio's, and would cost tokens on every turn).
 */
export async function finishTurn(
  ctx: AiTurnDeps,
  ai: AiService,
  principal: Principal | undefined,
  turn: PreparedTurn,
  result: GenerationResult,
): Promise<TurnResponse> {
  const m = await ai.module()
  const toolCalls = result.toolCalls.length ? { toolCalls: result.toolCalls } : {}
  const now = new Date().toISOString()
  if (result.pending) {
    const pending: PendingTurn = {
      toolCallId: result.pending.call.id,
      toolName: result.pending.call.name,
      messages: result.pending.messages,
      system: turn.system,
      baseVersionId: turn.baseVersionId,
      fallbackPath: turn.fallbackPath,
      userPrompt: turn.userPrompt,
      userText: turn.userText,
      executeImmediately: turn.executeImmediately,
      simulatedAuthor: turn.author,
    }
    await ai.records.updateChat(turn.meta.id, (chat) => ({ turns: chat.turns, pending: pending as unknown as StoredChat['pending'] }))
    const question = typeof result.pending.call.arguments.question === 'string' ? result.pending.call.arguments.question : ''
    return { success: true, explanation: result.text.trim() || question, ...toolCalls }
  }
  let merged: { files: Record<string, string>; changed: string[] }
  let explanation: string
  try {
    const output = m.parseModelOutput(result.text, turn.fallbackPath)
    merged = m.mergeProposal(turn.baseFiles, output)
    explanation = output.explanation || `Changed ${merged.changed.join(', ') || 'nothing'}.`
  } catch (error) {
    if (error instanceof m.UnusableOutputError)
      throw fail(ERRORS.aiFailed, `${error.message}${result.finishReason === 'length' ? ' The answer reached the output limit.' : ''}`)
    throw error
  }
  await ai.records.updateChat(turn.meta.id, (chat) => ({
    turns: [...chat.turns, { role: 'user', content: turn.userPrompt, createdAt: now }, { role: 'assistant', content: explanation, createdAt: now }],
  }))
  if (!turn.executeImmediately) return { success: true, explanation, isProposal: true, proposedFiles: merged.files, changedFiles: merged.changed, ...toolCalls }
  const committed = await commitFiles(ctx, principal, turn.meta.id, merged.files, explanation, turn.author)
  return { success: true, explanation, isProposal: false, changedFiles: merged.changed, ...committed, ...toolCalls }
}

/** A new version of exactly these files (commit-proposal, executeImmediately), under the storage quota. */
export async function commitFiles(
  ctx: AiTurnDeps,
  principal: Principal | undefined,
  id: string,
  files: Record<string, string>,
  explanation: string,
  author: string,
) {
  const firstLine =
    explanation
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? 'AI edit'
  const result = await withinStorage(ctx, principal, Object.values(files), async () => {
    const updated = await ctx.store.folios.update(id, {
      patch: {},
      files,
      commitMessage: firstLine.length > 200 ? `${firstLine.slice(0, 199)}…` : firstLine,
      author,
    })
    if (!updated) throw fail(ERRORS.projectNotFound)
    return updated
  })
  return { newVersionId: result.head.versionId, project: await ctx.store.views.withHead(result.meta, result.head) }
}
