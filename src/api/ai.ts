import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { AccessKey, DesignPreferences, FileMap, Folio, FolioIdParams, FolioStatus, named, ProjectMode, ReferenceFiles, Title } from './schemas.js'

export const AiCreateBody = named(
  'AiCreateRequest',
  z.object({
    prompt: z.string({ error: ERRORS.promptRequired.error }).trim().min(1, { error: ERRORS.promptRequired.error }).describe('What the folio should be'),
    model: z.string().max(200).optional().describe('OSS only: the model to use'),
    apiKey: z.string().max(500).optional().describe('OSS only: the caller’s own provider key (never stored)'),
    designPreferences: DesignPreferences.optional(),
    title: Title.optional().describe('Overrides the generated title'),
    isPrivate: z.boolean().optional(),
    accessKey: AccessKey.optional(),
    allowComments: z.boolean().optional().describe('Default true'),
    presentationModeOnly: z.boolean().optional(),
    referenceFiles: ReferenceFiles.optional(),
    status: FolioStatus.optional(),
  }),
)

export const AiCreateResult = named(
  'AiCreateResult',
  z.object({
    project: z.object({ id: z.string(), title: z.string(), description: z.string(), projectMode: ProjectMode, createdAt: z.string() }),
  }),
)

export const aiCreate = defineContract({
  operationId: 'aiCreate',
  method: 'POST',
  path: '/api/files/ai-create',
  tag: 'AI',
  summary: 'Create a folio from a prompt (Cloud)',
  description: 'The AI picks the project mode, a title and a description, and writes index.html.',
  access: 'required',
  onlyIn: { mode: 'cloud', error: ERRORS.cloudOnly },
  body: AiCreateBody,
  response: { status: 201, description: 'The new folio', schema: AiCreateResult },
  errors: [
    ERRORS.promptRequired,
    ERRORS.noAiModel,
    ERRORS.unauthorized,
    ERRORS.storageExceeded,
    when(ERRORS.cloudOnly, 'The server runs in OSS mode (use POST /api/files/{id}/ai there)'),
    ERRORS.aiFailed,
    ERRORS.aiNotConfigured,
  ],
})

const TargetedElement = z
  .object({ selector: z.string().max(2_000).optional(), tagName: z.string().max(100).optional(), outerHTML: z.string().max(100_000).optional() })
  .describe('The element the user pointed at')

const ToolCall = named(
  'ToolCall',
  z.object({
    id: z.string(),
    name: z.string().describe('list_files, read_file, web_fetch (server side) or ask_user (answered by the client with action tool-response)'),
    arguments: z.record(z.string(), z.unknown()),
    status: z.enum(['done', 'error', 'pending']).describe('pending: a client-side tool waiting for action tool-response'),
    result: z.string().optional().describe('Extension: what the tool returned (shortened) or why it failed'),
  }),
)

const AI_ACTIONS = ['commit-proposal', 'clear-chat', 'tool-response'] as const

/** The conversational fields, shared with ai-stream. */
const conversationFields = {
  userPrompt: z.string().max(100_000).optional().describe('Required without action: what the user asks for'),
  chatHistory: z
    .array(z.unknown())
    .max(200)
    .optional()
    .describe('Previous messages [{role: user|assistant, content}]; default: the conversation the server keeps for this folio'),
  pageContext: z.enum(['Whole Project', 'Current Screen']).optional().describe('Default Whole Project'),
  activeFilename: z.string().max(512).optional().describe('The file in view, with Current Screen'),
  targetVersionId: z.string().max(50).optional().describe('Default: the latest version'),
  designSystem: z
    .union([z.record(z.string(), z.unknown()), z.string().max(100)])
    .optional()
    .describe('Per-request design system: a catalogue id, a catalogue entry or designPreferences'),
  selectedModel: z.string().max(200).optional().describe('OSS: the model; "openai:…", "anthropic:…" or "ollama:…" also picks the provider'),
  apiKey: z.string().max(500).optional().describe('OSS: the caller’s own provider key, used for this request only (never stored, never logged)'),
  ollamaHost: z.string().max(500).optional().describe('OSS: the Ollama server (default OLLAMA_HOST, else 127.0.0.1:11434)'),
  targetedElement: TargetedElement.optional(),
  attachedFiles: z.array(z.unknown()).max(20).optional().describe('[{name, content}] or strings: shown to the model with the request'),
  executeImmediately: z.boolean().optional().describe('Commit the result as a new version instead of proposing it'),
  simulatedAuthor: z.string().max(200).optional().describe('Author of the versions this request commits'),
}

export const AiConversationBody = named(
  'AiRequest',
  z
    .object({
      action: z.enum(AI_ACTIONS).optional().describe('Absent: a conversational turn'),
      ...conversationFields,
      proposedFiles: FileMap.optional().describe('commit-proposal: the files to commit, exactly'),
      proposedExplanation: z.string().max(100_000).optional().describe('commit-proposal: becomes the commit message'),
      toolCallId: z.string().max(200).optional().describe('tool-response: the pending call answered'),
      result: z.unknown().optional().describe('tool-response: the tool’s result (any JSON)'),
    })
    .superRefine((body, issues) => {
      if (!body.action && !body.userPrompt?.trim()) issues.addIssue({ code: 'custom', path: ['userPrompt'], message: ERRORS.promptRequired.error })
      if (body.action === 'commit-proposal' && (!body.proposedFiles || !Object.keys(body.proposedFiles).length)) {
        issues.addIssue({ code: 'custom', path: ['proposedFiles'], message: 'commit-proposal needs proposedFiles, the files of the new version' })
      }
      if (body.action === 'tool-response' && !body.toolCallId)
        issues.addIssue({ code: 'custom', path: ['toolCallId'], message: 'tool-response needs the toolCallId it answers' })
    }),
)

export const AiStreamBody = named(
  'AiStreamRequest',
  z.object(conversationFields).superRefine((body, issues) => {
    if (!body.userPrompt?.trim()) issues.addIssue({ code: 'custom', path: ['userPrompt'], message: ERRORS.promptRequired.error })
  }),
)

export const AiTurnResult = named(
  'AiTurnResult',
  z.object({
    success: z.literal(true),
    explanation: z.string().optional().describe('Every turn has one; commit-proposal and clear-chat answer without it'),
    isProposal: z.boolean().optional().describe('true: proposedFiles awaits commit-proposal; false: executeImmediately committed newVersionId'),
    proposedFiles: z.record(z.string(), z.string()).optional().describe('The complete file set of the proposed version (unchanged files included)'),
    changedFiles: z.array(z.string()).optional().describe('Extension: the paths the model changed or added'),
    newVersionId: z.string().optional(),
    project: Folio.optional().describe('The folio with its new latest version (commit-proposal, executeImmediately), or after clear-chat'),
    toolCalls: z.array(ToolCall).optional().describe('Tools the model called; a pending ask_user waits for action tool-response'),
  }),
)

export const aiConversation = defineContract({
  operationId: 'aiConversation',
  method: 'POST',
  path: '/api/files/{id}/ai',
  tag: 'AI',
  summary: 'Co-author a folio: converse, propose, commit a proposal, clear the chat, answer a tool',
  description:
    'Without action: the model reads the folio (whole project, or the current screen and the targeted element), its design system, attachments, reference files and the conversation, and answers with complete files: a proposal ({explanation, isProposal: true, proposedFiles}) or, with executeImmediately, a new version. commit-proposal commits exactly proposedFiles. clear-chat forgets the conversation. tool-response answers a pending client-side tool call (ask_user) and continues the turn. Cloud: each turn counts against the monthly AI messages.',
  access: 'required',
  params: FolioIdParams,
  body: AiConversationBody,
  response: { status: 200, description: 'The turn’s result', schema: AiTurnResult },
  errors: [
    when(ERRORS.promptRequired, 'userPrompt is missing or blank (no action)'),
    ERRORS.invalidBody,
    ERRORS.versionNotFound,
    ERRORS.noAiModel,
    ERRORS.unauthorized,
    ERRORS.quotaExceeded,
    ERRORS.storageExceeded,
    ERRORS.projectNotFound,
    when(ERRORS.aiFailed, 'The model answered without usable files, or the provider failed (the message says which)'),
    ERRORS.aiNotConfigured,
  ],
})

export const aiStream = defineContract({
  operationId: 'aiStream',
  method: 'POST',
  path: '/api/files/{id}/ai-stream',
  tag: 'AI',
  summary: 'A conversational turn streamed as Server-Sent Events',
  description:
    'Each event is `data: <JSON>` with a type: status {stage: planning | generating, message} (planning first: the model plans the change; then it writes), chunk {text} as the answer arrives, then done {explanation, …the result of POST /ai} or error {message}. Errors found before generation (404, 400, 402) are answered as JSON instead. Closing the connection aborts the provider request, and a cut stream commits nothing.',
  access: 'required',
  params: FolioIdParams,
  body: AiStreamBody,
  response: { status: 200, description: 'An event stream', contentType: 'text/event-stream' },
  errors: [
    when(ERRORS.promptRequired, 'userPrompt is missing or blank'),
    ERRORS.invalidBody,
    ERRORS.noAiModel,
    ERRORS.unauthorized,
    ERRORS.quotaExceeded,
    ERRORS.storageExceeded,
    ERRORS.projectNotFound,
    ERRORS.aiNotConfigured,
  ],
})

const WorkspaceAiView = named(
  'WorkspaceAiSettings',
  z.object({
    configured: z.boolean().describe('Whether AI requests of this workspace reach a provider'),
    source: z.enum(['workspace', 'server', 'none']).describe('The workspace’s own settings, the operator’s environment, or nothing'),
    provider: z.enum(['openai', 'anthropic', 'ollama']).optional(),
    model: z.string().optional(),
    baseURL: z.string().optional(),
    hasKey: z.boolean().describe('A key is stored (it is never shown again)'),
  }),
)

export const WorkspaceAiBody = named(
  'SetWorkspaceAiRequest',
  z.object({
    provider: z.enum(['openai', 'anthropic']).describe('openai: Chat Completions (OpenAI or a compatible server at baseURL); anthropic: Messages'),
    apiKey: z.string().trim().min(1).max(500).describe('The provider key; stored encrypted, never shown again'),
    model: z.string().trim().min(1).max(200).optional(),
    baseURL: z
      .url({ protocol: /^https$/ })
      .max(500)
      .optional()
      .describe(
        'An https endpoint of an OpenAI-compatible or Anthropic-compatible service, at a public address unless the operator allows private ones (FOLIO_AI_ALLOW_PRIVATE=1, FOLIO_ALLOW_PRIVATE_HOSTS)',
      ),
  }),
)

const ownerOrAdmin = when(ERRORS.forbidden, 'The caller is not the Owner or an Admin')

export const getWorkspaceAi = defineContract({
  operationId: 'getWorkspaceAi',
  method: 'GET',
  path: '/api/workspace/ai',
  tag: 'AI',
  summary: 'Which AI provider the workspace uses (Cloud); never the key',
  access: 'required',
  onlyIn: { mode: 'cloud', error: ERRORS.cloudOnly },
  response: { status: 200, description: 'The settings', schema: WorkspaceAiView },
  errors: [ERRORS.unauthorized, ERRORS.cloudOnly],
})

export const setWorkspaceAi = defineContract({
  operationId: 'setWorkspaceAi',
  method: 'PUT',
  path: '/api/workspace/ai',
  tag: 'AI',
  summary: 'Set the workspace’s own AI provider and key (Cloud; Owner or Admin)',
  description:
    'The key is encrypted at rest (AES-256-GCM under the server’s FOLIO_AI_SECRET) and used for this workspace’s AI requests instead of the operator’s provider.',
  access: 'required',
  onlyIn: { mode: 'cloud', error: ERRORS.cloudOnly },
  body: WorkspaceAiBody,
  response: { status: 200, description: 'The settings now', schema: WorkspaceAiView },
  errors: [ERRORS.invalidBody, ERRORS.unauthorized, ownerOrAdmin, ERRORS.cloudOnly],
})

export const deleteWorkspaceAi = defineContract({
  operationId: 'deleteWorkspaceAi',
  method: 'DELETE',
  path: '/api/workspace/ai',
  tag: 'AI',
  summary: 'Forget the workspace’s own AI provider and key (Cloud; Owner or Admin)',
  access: 'required',
  onlyIn: { mode: 'cloud', error: ERRORS.cloudOnly },
  response: { status: 200, description: 'The settings now (the operator’s provider, if any)', schema: WorkspaceAiView },
  errors: [ERRORS.unauthorized, ownerOrAdmin, ERRORS.cloudOnly],
})
