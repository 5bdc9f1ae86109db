import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { named } from './schemas.js'

const cloudOnly = { mode: 'cloud', error: ERRORS.cloudOnly } as const
const { unauthorized } = ERRORS
const ownerOrAdmin = when(
  ERRORS.forbidden,
  'The caller is not the Owner or an Admin; only an Owner may make, change or remove an Owner, and the last Owner stays',
)

const RoleSchema = z.enum(['owner', 'admin', 'member']).describe('Owner, Admin or Member')

export const PlanLimitsSchema = named(
  'PlanLimits',
  z.object({
    requestsPerMinute: z.number().int().describe('Authenticated requests per minute (X-RateLimit-Limit)'),
    aiMessagesPerMonth: z.number().int().describe('AI messages per calendar month (UTC)'),
    storageBytes: z.number().int().describe('Bytes of distinct content the workspace may store'),
  }),
)

export const WorkspaceInfo = named(
  'Workspace',
  z.object({
    id: z.string().describe('UUID'),
    name: z.string(),
    plan: z.string().describe('free, pro, team, or another plan of the server’s plans file'),
    usage: z.object({
      storageBytes: z.number().int().describe('Each distinct content counted once per workspace'),
      aiMessagesThisMonth: z.number().int(),
    }),
    limits: PlanLimitsSchema,
  }),
)

export const MemberSchema = named('Member', z.object({ email: z.string(), role: RoleSchema, joinedAt: z.string().describe('ISO 8601') }))

const EmailParam = z.object({ email: z.string().describe('The member’s e-mail address (URL-encoded)') })

export const getWorkspace = defineContract({
  operationId: 'getWorkspace',
  method: 'GET',
  path: '/api/workspace',
  tag: 'Workspace',
  summary: 'The caller’s workspace: plan, usage and limits (Cloud)',
  access: 'required',
  onlyIn: cloudOnly,
  response: { status: 200, description: 'The workspace', schema: WorkspaceInfo },
  errors: [unauthorized, ERRORS.cloudOnly],
})

export const listMembers = defineContract({
  operationId: 'listMembers',
  method: 'GET',
  path: '/api/workspace/members',
  tag: 'Workspace',
  summary: 'The workspace’s members and their roles (Cloud)',
  access: 'required',
  onlyIn: cloudOnly,
  response: { status: 200, description: 'Members, oldest first', schema: z.array(MemberSchema) },
  errors: [unauthorized, ERRORS.cloudOnly],
})

export const setMemberRole = defineContract({
  operationId: 'setMemberRole',
  method: 'PUT',
  path: '/api/workspace/members/{email}',
  tag: 'Workspace',
  summary: 'Change a member’s role (Owner or Admin; Cloud)',
  access: 'required',
  onlyIn: cloudOnly,
  params: EmailParam,
  body: z.object({ role: RoleSchema }),
  response: { status: 200, description: 'The member after the change', schema: MemberSchema },
  errors: [unauthorized, ownerOrAdmin, ERRORS.memberNotFound, ERRORS.invalidBody, ERRORS.cloudOnly],
})

export const removeMember = defineContract({
  operationId: 'removeMember',
  method: 'DELETE',
  path: '/api/workspace/members/{email}',
  tag: 'Workspace',
  summary: 'Remove a member from the workspace (Owner or Admin; Cloud)',
  access: 'required',
  onlyIn: cloudOnly,
  params: EmailParam,
  response: { status: 200, description: 'Removed', schema: z.object({ success: z.literal(true) }) },
  errors: [unauthorized, ownerOrAdmin, ERRORS.memberNotFound, ERRORS.cloudOnly],
})

export const inviteMember = defineContract({
  operationId: 'inviteMember',
  method: 'POST',
  path: '/api/workspace/invitations',
  tag: 'Workspace',
  summary: 'Invite someone by e-mail address (Owner or Admin; Cloud)',
  description: 'Makes an invitation code that lasts 7 days; whoever proves the address (the e-mailed code) and presents the invitation joins with the role.',
  access: 'required',
  onlyIn: cloudOnly,
  body: z.object({ email: z.email().describe('Who is invited'), role: RoleSchema.default('member') }),
  response: {
    status: 201,
    description: 'The invitation',
    schema: z.object({ invitation: z.object({ code: z.string(), email: z.string(), role: RoleSchema, expiresAt: z.string().describe('ISO 8601') }) }),
  },
  errors: [unauthorized, ownerOrAdmin, ERRORS.invalidBody, ERRORS.cloudOnly],
})
