import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { AccessKey, DesignPreferences, FolioStatus, named, ProjectMode, ReferenceFiles, Title } from './schemas.js'

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
