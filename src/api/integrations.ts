import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { named } from './schemas.js'

/** The chat formats a notification is posted in (Slack's JSON is what most chat tools take). */
export const CHAT_FORMATS = ['slack', 'discord', 'teams'] as const

export const MAX_INTEGRATIONS = 10

export const Integration = named(
  'Integration',
  z.object({
    url: z
      .string()
      .max(2048, { error: 'url must be at most 2,048 characters' })
      .regex(/^https?:\/\/[^\s]+$/i, 'url must be an http(s) URL: an incoming-webhook address of the chat tool')
      .describe("The incoming-webhook URL; it holds the chat tool's secret, so only the workspace sees it"),
    format: z
      .enum(CHAT_FORMATS)
      .optional()
      .describe(
        'slack (Slack-compatible JSON {text}: Slack, Mattermost, Rocket.Chat, Google Chat), discord or teams (an Adaptive Card, as Teams workflows take). Default: discord for discord.com webhooks, teams for Microsoft hosts, else slack',
      ),
  }),
)

const Integrations = named(
  'Integrations',
  z.object({
    integrations: z.array(Integration).max(MAX_INTEGRATIONS, { error: `integrations holds at most ${MAX_INTEGRATIONS} webhooks` }),
  }),
)

/** Who configured a webhook: shown with it, so the workspace sees where each one came from. */
const ConfiguredBy = z.object({
  credential: z
    .enum(['api-key', 'session', 'pre-claim', 'oauth', 'open'])
    .describe(
      'How they proved who they were: api-key (the workspace key, or a member’s agent token), session (a person signed in), pre-claim (an agent before its registration was claimed). An OAuth token never configures one',
    ),
  name: z
    .string()
    .describe('Who: the address of a member signed in or of an agent token, the workspace’s name for its key, “Unclaimed agent” for a pre-claim key'),
  email: z.string().optional().describe('The member’s address, when the credential names one'),
})

export const ConfiguredIntegration = named(
  'ConfiguredIntegration',
  Integration.extend({
    format: z.enum(CHAT_FORMATS).describe('The format notifications are posted in'),
    configuredBy: ConfiguredBy.optional().describe('Who added this webhook (or last changed its format); absent for one saved before folio recorded it'),
    configuredAt: z.string().optional().describe('When (ISO 8601)'),
  }),
)

const ConfiguredIntegrations = named('ConfiguredIntegrations', z.object({ integrations: z.array(ConfiguredIntegration) }))

/** Applications authorized with OAuth work with folios: they manage nothing of the workspace (domain/principal.ts managesWorkspace). */
const TOKENS_MANAGE_NOTHING = 'an application authorized with OAuth works with folios and manages nothing of the workspace'

const NOTIFICATION =
  'Each new comment on a folio of the workspace is posted to every webhook: the folio title, the author, the text and the share link, never an access key. Sent in the background, retried with back-off; a webhook that fails never delays or fails the comment.'

export const getIntegrations = defineContract({
  operationId: 'getIntegrations',
  method: 'GET',
  path: '/api/workspace/integrations',
  tag: 'Workspace',
  summary: "The workspace's chat integrations (incoming webhooks notified of new comments)",
  description: NOTIFICATION,
  access: 'required',
  onlyIn: { mode: 'cloud', error: ERRORS.cloudOnly },
  response: { status: 200, description: 'The configured webhooks, each with who configured it', schema: ConfiguredIntegrations },
  errors: [ERRORS.unauthorized, when(ERRORS.forbidden, `An OAuth token: ${TOKENS_MANAGE_NOTHING}, and the URLs are the chat tools’ secrets`), ERRORS.cloudOnly],
})

export const setIntegrations = defineContract({
  operationId: 'setIntegrations',
  method: 'PUT',
  path: '/api/workspace/integrations',
  tag: 'Workspace',
  summary: "Replaces the workspace's chat integrations (an empty list turns notifications off)",
  description: `${NOTIFICATION} Owner or Admin, with the workspace key or signed in (never an OAuth token). A URL must be http(s), and in a public address unless the operator allows private ones (FOLIO_WEBHOOKS_ALLOW_PRIVATE=1).`,
  access: 'required',
  onlyIn: { mode: 'cloud', error: ERRORS.cloudOnly },
  body: Integrations,
  response: {
    status: 200,
    description: 'The webhooks now configured (with their formats, and who configured each: a webhook already there, with the same format, keeps its own)',
    schema: ConfiguredIntegrations,
  },
  errors: [
    ERRORS.invalidBody,
    ERRORS.unauthorized,
    when(ERRORS.forbidden, `The caller is not the Owner or an Admin, or is an OAuth token (${TOKENS_MANAGE_NOTHING})`),
    ERRORS.cloudOnly,
  ],
})
