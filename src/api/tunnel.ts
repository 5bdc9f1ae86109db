import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { named } from './schemas.js'
import { TUNNEL_PROVIDERS } from '../domain/tunnel-providers.js'

const Provider = z.enum(TUNNEL_PROVIDERS)

export const TunnelStatus = named(
  'TunnelStatus',
  z.object({
    active: z.boolean().describe('A tunnel is connected right now'),
    url: z.string().nullable().describe('The public URL; null when no tunnel runs'),
    customTunnelUrl: z.string().describe('Saved for display only; empty when unset'),
    state: z.enum(['stopped', 'starting', 'connected', 'reconnecting']).describe('What the tunnel is doing (beyond the spec: reconnects are visible)'),
    lastError: z.string().nullable().describe('Why the last attempt failed, if it did'),
    provider: Provider.describe('The provider of the running tunnel, else the one the next start uses (the last one chosen)'),
    viewerPassword: z
      .string()
      .nullable()
      .describe(
        "What a browser viewer must type on the public localtunnel server's reminder page (this machine's public IP address); null when the server has no such page or it could not be fetched",
      ),
    viewerNotice: z.string().nullable().describe('One sentence for the author: what a viewer sees before the folio through this tunnel'),
    previousUrl: z.string().nullable().describe('The public URL before the tunnel came back with another one: links shared with it no longer work'),
  }),
)

export const TunnelAction = named(
  'TunnelAction',
  z.object({
    action: z.string().describe('start, stop or save_custom'),
    customTunnelUrl: z.string().optional().describe('With save_custom'),
    provider: Provider.optional().describe(
      'With start (beyond the spec): localtunnel, cloudflare or custom (the saved customTunnelUrl); remembered for later starts',
    ),
    install: z
      .boolean()
      .optional()
      .describe("With start and provider cloudflare (beyond the spec): download cloudflared on the server's machine when it is not there (about 40 MB, once)"),
    host: z
      .string()
      .regex(/^https?:\/\/[^\s/]+\/?$/, 'host must be an http(s) URL of a localtunnel server, e.g. https://localtunnel.me')
      .optional()
      .describe('With start (beyond the spec): the localtunnel server to use this time instead of the one folio serve was given'),
    subdomain: z
      .string()
      .regex(/^[a-z0-9-]{4,63}$/, 'subdomain is 4 to 63 lowercase letters, digits or hyphens')
      .optional()
      .describe('With start (beyond the spec): the subdomain to ask the tunnel server for; it may give another one when that is taken'),
  }),
)

const ossOnly = ERRORS.tunnelOssOnly
const unauthorized = when(ERRORS.unauthorized, 'A remote caller without the key')

export const getTunnel = defineContract({
  operationId: 'getTunnel',
  method: 'GET',
  path: '/api/tunnel',
  tag: 'Tunnel',
  summary: 'Whether a public tunnel to this server runs, and its URL',
  access: 'required',
  onlyIn: { mode: 'oss', error: ossOnly },
  response: { status: 200, description: 'Tunnel status', schema: TunnelStatus },
  errors: [ossOnly, unauthorized],
})

export const controlTunnel = defineContract({
  operationId: 'controlTunnel',
  method: 'POST',
  path: '/api/tunnel',
  tag: 'Tunnel',
  summary: 'Start or stop the public tunnel, or save a display URL',
  description:
    'start: {success, url} (plus message when one already runs, or when the tunnel server gave another subdomain than the one asked for); stop: {success}; save_custom: {success, customTunnelUrl}. Requests that arrive through the tunnel are remote: protected endpoints need the API key for them.',
  access: 'required',
  onlyIn: { mode: 'oss', error: ossOnly },
  body: TunnelAction,
  response: {
    status: 200,
    description: 'Done',
    schema: z.object({
      success: z.literal(true),
      url: z.string().optional(),
      message: z.string().optional(),
      customTunnelUrl: z.string().optional(),
      provider: Provider.optional(),
      viewerPassword: z.string().nullable().optional(),
      viewerNotice: z.string().nullable().optional(),
    }),
  },
  errors: [ERRORS.invalidTunnelAction, ossOnly, unauthorized, ERRORS.tunnelFailed],
})
