import type { ModelMessage } from 'ai'
import type { ProjectMode } from '../domain/model.js'

/** What a turn of the conversation is told: the folio, its look, what is in view, the request. */
export interface FolioPromptContext {
  title: string
  projectMode: ProjectMode
  /** The design system, rendered (designSystemText), or undefined. */
  designSystem?: string
  /** The files the model sees: the whole project, or the current screen only. */
  files: Record<string, string>
  /** Every path of the version, for a model that sees only the current screen. */
  allPaths: string[]
  /** Current Screen: the file in view and, if any, the element the user pointed at. */
  focus?: { filename: string; targetedElement?: { selector?: string; tagName?: string; outerHTML?: string } }
  attachedFiles: NamedText[]
  referenceFiles: NamedText[]
  history: ChatTurn[]
  prompt: string
}

export interface NamedText {
  name: string
  text: string
}

export interface ChatTurn {
  role: 'user' | 'assistant'
  content: string
}

const MODE_GUIDANCE: Record<ProjectMode, string> = {
  deck: 'a slide deck: one <section class="slide"> per slide, one slide in view at a time, arrow keys and clicks move between slides, the location hash names the slide (#1, #2, …)',
  document: 'a long-form document: readable measure (60–80 characters), clear headings, print-friendly',
  spreadsheet: 'a spreadsheet-like page: tables of data with sticky headers, numbers right-aligned, sortable where useful',
  dashboard: 'a dashboard: a grid of cards with key figures and charts (inline SVG or a CDN chart library), responsive',
  infography: 'an infographic: a single tall visual story of figures, icons and short captions',
}

/** Text of files folded into a prompt stops here, so one big file cannot crowd out the request. */
const MAX_FILE_CHARS = 120_000
const MAX_CONTEXT_CHARS = 400_000

const isBinary = (content: string) => content.startsWith('data:') || content.startsWith('asset://')

/** The system prompt: who the model is, the folio, the design system, and the answer format. */
export function systemPrompt(
  context: Pick<FolioPromptContext, 'title' | 'projectMode' | 'designSystem'>,
  options: { tools: string[]; create?: boolean },
): string {
  const lines = [
    'You are the co-author of an HTML folio: a small website of self-contained HTML files (CSS and JavaScript inline or from a CDN) that is published and commented on by viewers.',
    options.create ? 'You create a new folio from the user’s request.' : `The folio is titled ${JSON.stringify(context.title)}.`,
    `Project mode: ${context.projectMode}, ${MODE_GUIDANCE[context.projectMode]}.`,
  ]
  if (context.designSystem) lines.push('', 'Follow this design system (colours, type, spacing and guidelines):', context.designSystem)
  lines.push(
    '',
    'Answer format:',
    '1. First a short explanation for the user of what you did (plain text, a few sentences).',
    '2. Then every file you create or change, complete, each in its own block:',
    '<folio-file path="index.html">',
    '<!DOCTYPE html>',
    '…the whole file…',
    '</folio-file>',
    'Never send a partial file, a diff or a placeholder such as "rest unchanged". Files you leave out stay as they are.',
    'HTML files are complete documents, from <!DOCTYPE html> to </html>.',
  )
  if (options.create) {
    lines.push(
      '3. Before the files, one line of metadata as JSON in a block:',
      '<folio-meta>{"title": "…", "description": "one sentence", "projectMode": "deck|document|spreadsheet|dashboard|infography"}</folio-meta>',
      'Pick the project mode that fits the request. The main page is index.html.',
    )
  }
  if (options.tools.length) {
    lines.push(
      '',
      `Tools you may call: ${options.tools.join(', ')}. web_fetch reads only web addresses the user wrote in the conversation. ask_user asks the user a question and waits for the answer.`,
    )
  }
  return lines.join('\n')
}

/** The conversation as model messages: earlier turns, then the context and the request. */
export function conversationMessages(context: FolioPromptContext): ModelMessage[] {
  const messages: ModelMessage[] = context.history.map((turn) => ({ role: turn.role, content: turn.content }))
  messages.push({ role: 'user', content: requestText(context) })
  return messages
}

/** The last user message: files in view, the element pointed at, attachments, then the request. */
export function requestText(context: FolioPromptContext): string {
  const parts: string[] = []
  let budget = MAX_CONTEXT_CHARS
  const fileBlock = (path: string, content: string) => {
    if (isBinary(content)) return `<folio-file path="${path}" binary="true"/>`
    const text =
      content.length > Math.min(MAX_FILE_CHARS, budget) ? `${content.slice(0, Math.max(0, Math.min(MAX_FILE_CHARS, budget)))}\n…(truncated)` : content
    budget -= text.length
    return `<folio-file path="${path}">\n${text}\n</folio-file>`
  }
  const paths = Object.keys(context.files)
  if (context.focus) {
    parts.push(
      `The user is looking at ${context.focus.filename}. The folio’s files: ${context.allPaths.join(', ')}. Change other files only if the request needs it (read_file shows them).`,
    )
  } else if (paths.length) {
    parts.push('The folio’s current files:')
  }
  for (const path of paths) parts.push(fileBlock(path, context.files[path]!))
  const target = context.focus?.targetedElement
  if (target && (target.selector || target.outerHTML)) {
    parts.push(
      'The user pointed at this element; the request is about it:',
      [
        target.selector && `selector: ${target.selector}`,
        target.tagName && `tag: ${target.tagName}`,
        target.outerHTML && `html: ${target.outerHTML.slice(0, 8_000)}`,
      ]
        .filter(Boolean)
        .join('\n'),
    )
  }
  for (const [label, list] of [
    ['Attached file', context.attachedFiles],
    ['Reference document', context.referenceFiles],
  ] as const) {
    for (const item of list) parts.push(`${label} ${JSON.stringify(item.name)}:\n${item.text.slice(0, Math.max(0, Math.min(MAX_FILE_CHARS, budget)))}`)
  }
  parts.push('Request:', context.prompt)
  return parts.join('\n\n')
}

/**
 * Attachments and reference files have no shape in the spec: strings, or objects naming
 * themselves (name, filename, path, title) and carrying text (content, text, data, url).
 */
export function namedTexts(items: unknown[] | undefined, label: string): NamedText[] {
  const out: NamedText[] = []
  for (const [i, item] of (items ?? []).entries()) {
    if (typeof item === 'string') {
      out.push({ name: `${label} ${i + 1}`, text: item })
      continue
    }
    if (!item || typeof item !== 'object') continue
    const o = item as Record<string, unknown>
    const name = [o.name, o.filename, o.path, o.title].find((v) => typeof v === 'string') as string | undefined
    const text = [o.content, o.text, o.data, o.url].find((v) => typeof v === 'string') as string | undefined
    if (text !== undefined) out.push({ name: name ?? `${label} ${i + 1}`, text: isBinary(text) ? '(binary file, not shown)' : text })
  }
  return out
}

/** Previous messages as the request sends them ({role, content} or {role, text}); others are dropped. */
export function chatTurns(items: unknown[] | undefined): ChatTurn[] {
  const out: ChatTurn[] = []
  for (const item of items ?? []) {
    if (!item || typeof item !== 'object') continue
    const o = item as Record<string, unknown>
    const role = o.role === 'assistant' || o.role === 'ai' || o.role === 'model' ? 'assistant' : o.role === 'user' ? 'user' : undefined
    const content = typeof o.content === 'string' ? o.content : typeof o.text === 'string' ? o.text : undefined
    if (role && content) out.push({ role, content })
  }
  return out
}

const PLAN_INSTRUCTION =
  'Before writing anything, plan: in at most 8 short bullet points, say what you will change or create and in which files. No code, no files yet.'

/** Stage one of ai-stream: the same conversation, asked for a plan only. */
export function planningMessages(messages: ModelMessage[]): ModelMessage[] {
  return [...messages, { role: 'user', content: PLAN_INSTRUCTION }]
}

/** Stage two: the plan as the model's own words, then the instruction to carry it out. */
export function afterPlanMessages(messages: ModelMessage[], plan: string): ModelMessage[] {
  return [
    ...messages,
    { role: 'assistant', content: plan || '(no plan)' },
    { role: 'user', content: 'Carry out this plan now, in the answer format: the explanation, then the complete files.' },
  ]
}
