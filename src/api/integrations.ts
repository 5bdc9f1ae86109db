import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS } from './errors.js'
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
      .describe('The incoming-webhook URL; it holds the chat tool\'s secret, so only the workspace sees it'),
    format: z
      .enum(CHAT_FORMATS)
      .optional()
      .describe('slack (Slack-compatible JSON {text}: Slack, Mattermost, Rocket.Chat, Google Chat), discord or teams (an Adaptive Card, as Teams workflows take). Default: discord for discord.com webhooks, teams for Microsoft hosts, else slack'),
  }),
)

const Integrations = named(
  'Integrations',
  z.object({
    integrations: z.array(Integration).max(MAX_INTEGRATIONS, { error: `integrations holds at most ${MAX_INTEGRATIONS} webhooks` }),
  }),
)

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
  response: { status: 200, description: 'The configured webhooks', schema: Integrations },
  errors: [ERRORS.unauthorized, ERRORS.cloudOnly],
})

export const setIntegrations = defineContract({
  operationId: 'setIntegrations',
  method: 'PUT',
  path: '/api/workspace/integrations',
  tag: 'Workspace',
  summary: "Replaces the workspace's chat integrations (an empty list turns notifications off)",
  description: `${NOTIFICATION} Owner or Admin. A URL must be http(s), and in a public address unless the operator allows private ones (FOLIO_WEBHOOKS_ALLOW_PRIVATE=1).`,
  access: 'required',
  onlyIn: { mode: 'cloud', error: ERRORS.cloudOnly },
  body: Integrations,
  response: { status: 200, description: 'The webhooks now configured (with their formats)', schema: Integrations },
  errors: [ERRORS.invalidBody, ERRORS.unauthorized, ERRORS.forbidden, ERRORS.cloudOnly],
})
