import { z } from 'zod'
import { EmailAddress, Organization } from './agent-auth.js'
import { defineContract } from './contract.js'
import { ERRORS } from './errors.js'

const cloudOnly = { mode: 'cloud' as const, error: ERRORS.cloudOnly }
const Role = z.enum(['owner', 'admin', 'member'])

export const SignInSession = z.object({
  id: z.string(),
  email: z.string().nullable(),
  method: z.enum(['email-code', 'workspace-key']),
  /** Null: an address with no workspace (it may still see folios it collaborates on). */
  workspace: Organization.nullable(),
  role: Role.nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
})

const SessionReply = z.object({ success: z.literal(true), session: SignInSession })
const Success = z.object({ success: z.literal(true) })

export const requestSignInCode = defineContract({
  operationId: 'requestSignInCode',
  method: 'POST',
  path: '/api/auth/code',
  tag: 'Sign-in',
  summary: 'E-mail a 6-digit sign-in code to an address (Cloud)',
  description: 'Always answers success (whether the address has an account is not told). The code lasts 15 minutes, once, 5 attempts.',
  access: 'public',
  onlyIn: cloudOnly,
  rateLimit: 'auth',
  body: z.object({ email: EmailAddress }),
  response: { status: 200, description: 'The code is on its way', schema: Success },
  errors: [ERRORS.cloudOnly, ERRORS.invalidBody, ERRORS.mailFailed, ERRORS.tooManyRequests],
})

export const signIn = defineContract({
  operationId: 'signIn',
  method: 'POST',
  path: '/api/auth/signin',
  tag: 'Sign-in',
  summary: 'Sign in a person: the e-mailed code, or the workspace key pasted (Cloud)',
  description:
    'Sets an HttpOnly, SameSite=Strict session cookie for the dashboard and owner actions. With a code: `workspaceId` picks one of the address’s workspaces (default: the one it has most rights in); `invitation` accepts an invitation to that address first. Sessions end on sign-out, on revocation by the Owner or an Admin, and when the workspace key rotates.',
  access: 'public',
  onlyIn: cloudOnly,
  rateLimit: 'auth',
  body: z.union([
    z.object({
      email: EmailAddress,
      code: z.string().regex(/^\d{6}$/, { error: 'code must be the 6 digits of the e-mail' }),
      workspaceId: z.string().max(100).optional(),
      invitation: z.string().max(200).optional(),
    }),
    z.object({ apiKey: z.string().max(200) }),
  ]),
  response: {
    status: 200,
    description: 'Signed in: the session (its cookie is set)',
    schema: SessionReply,
    headers: { 'Set-Cookie': 'folio_session=…; HttpOnly; SameSite=Strict; Path=/' },
  },
  errors: [
    ERRORS.cloudOnly,
    ERRORS.invalidBody,
    ERRORS.invalidCode,
    ERRORS.tooManyAttempts,
    ERRORS.unauthorized,
    ERRORS.invitationInvalid,
    ERRORS.tooManyRequests,
  ],
})

export const currentSession = defineContract({
  operationId: 'currentSession',
  method: 'GET',
  path: '/api/auth/session',
  tag: 'Sign-in',
  summary: 'Who is signed in in this browser (Cloud)',
  access: 'public',
  onlyIn: cloudOnly,
  response: { status: 200, description: 'The session', schema: SessionReply },
  errors: [ERRORS.cloudOnly, ERRORS.unauthorized],
})

export const signOut = defineContract({
  operationId: 'signOut',
  method: 'POST',
  path: '/api/auth/signout',
  tag: 'Sign-in',
  summary: 'End this browser’s session (Cloud)',
  access: 'public',
  onlyIn: cloudOnly,
  response: { status: 200, description: 'Signed out (the cookie is cleared)', schema: Success },
  errors: [ERRORS.cloudOnly],
})

export const listSessions = defineContract({
  operationId: 'listSessions',
  method: 'GET',
  path: '/api/auth/sessions',
  tag: 'Sign-in',
  summary: 'The sign-in sessions of the workspace (Owner or Admin; Cloud)',
  access: 'required',
  onlyIn: cloudOnly,
  response: {
    status: 200,
    description: 'Live sessions, newest first',
    schema: z.object({ sessions: z.array(SignInSession.extend({ current: z.boolean() })) }),
  },
  errors: [ERRORS.cloudOnly, ERRORS.unauthorized, ERRORS.forbidden],
})

export const revokeSession = defineContract({
  operationId: 'revokeSession',
  method: 'DELETE',
  path: '/api/auth/sessions/{sessionId}',
  tag: 'Sign-in',
  summary: 'End a sign-in session of the workspace (Owner or Admin; anyone their own; Cloud)',
  access: 'required',
  onlyIn: cloudOnly,
  params: z.object({ sessionId: z.string().max(100) }),
  response: { status: 200, description: 'Ended', schema: Success },
  errors: [ERRORS.cloudOnly, ERRORS.unauthorized, ERRORS.forbidden, ERRORS.sessionNotFound],
})
