import { beforeAll, describe, expect, it } from 'vitest'
import { listFolios } from '../src/api/files.js'
import { getWorkspace, inviteMember, listMembers, removeMember, setMemberRole } from '../src/api/workspace.js'
import type { Principal } from '../src/domain/principal.js'
import { testApi, type TestApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'
import { addMember, createWorkspace, type TestWorkspace, useCloudServer } from './helpers/workspaces.js'

describe('workspace members (Cloud)', () => {
  const s = useCloudServer()
  let ws: TestWorkspace
  /** A person signed in to the workspace with a role (sessions are another resolver: plugged in as one). */
  const as = (email: string): TestApi => testApi(s.ts.url, { key: `session-${email}` })
  beforeAll(async () => {
    ws = await createWorkspace(s.ts, { name: 'Team', email: 'olga@example.com' })
    await addMember(s.ts, ws.id, 'ada@example.com', 'admin')
    await addMember(s.ts, ws.id, 'max@example.com', 'member')
    const workspaces = s.ts.server.store.workspaces
    s.ts.server.context.auth.addResolver((token) => {
      if (!token?.startsWith('session-')) return undefined
      const email = token.slice('session-'.length)
      const member = workspaces.member(ws.id, email)
      return member ? ({ workspaceId: ws.id, name: email, email, role: member.role, via: 'session' } satisfies Principal) : undefined
    })
  })

  it('shows the workspace, its plan, usage and limits', async () => {
    const info = await ws.api.send(getWorkspace)
    expect(info.status).toBe(200)
    expect(info.body).toEqual({
      id: ws.id,
      name: 'Team',
      plan: 'free',
      usage: { storageBytes: 0, aiMessagesThisMonth: 0 },
      limits: { requestsPerMinute: 120, aiMessagesPerMonth: 50, storageBytes: 100 * 1024 * 1024 },
    })
    expect(info.headers.get('x-ratelimit-limit')).toBe('120')
  })

  it('lists members to any member, and lets only the Owner or an Admin change them', async () => {
    const listed = await as('max@example.com').send(listMembers)
    expect(listed.body.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['olga@example.com', 'owner'],
      ['ada@example.com', 'admin'],
      ['max@example.com', 'member'],
    ])
    const byMember = await as('max@example.com').send(setMemberRole, { params: { email: 'ada@example.com' }, body: { role: 'member' } })
    expect(byMember.status).toBe(403)
    expect(byMember.body.error).toBe('Forbidden')
    expect((await as('max@example.com').send(removeMember, { params: { email: 'ada@example.com' } })).status).toBe(403)
    expect((await as('max@example.com').send(inviteMember, { body: { email: 'new@example.com' } })).status).toBe(403)

    // An Admin manages members, but not Owners.
    const promoted = await as('ada@example.com').send(setMemberRole, { params: { email: 'MAX@example.com' }, body: { role: 'admin' } })
    expect(promoted.status).toBe(200)
    expect(promoted.body).toMatchObject({ email: 'max@example.com', role: 'admin' })
    expect((await as('ada@example.com').send(setMemberRole, { params: { email: 'olga@example.com' }, body: { role: 'member' } })).status).toBe(403)
    expect((await as('ada@example.com').send(setMemberRole, { params: { email: 'max@example.com' }, body: { role: 'owner' } })).status).toBe(403)
    const unknown = await as('ada@example.com').send(removeMember, { params: { email: 'nobody@example.com' } })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toBe('Member not found')
    expect((await ws.api.send(setMemberRole, { params: { email: 'max@example.com' }, body: { role: 'boss' } })).body.error).toBe('INVALID_BODY')
  })

  it('keeps the last Owner, and removes a member at once', async () => {
    const last = await ws.api.send(removeMember, { params: { email: 'olga@example.com' } })
    expect(last.status).toBe(403)
    expect(last.body.message).toContain('last Owner')
    expect((await ws.api.send(setMemberRole, { params: { email: 'olga@example.com' }, body: { role: 'admin' } })).status).toBe(403)
    expect((await ws.api.send(removeMember, { params: { email: 'max@example.com' } })).body).toEqual({ success: true })
    expect((await as('max@example.com').send(listFolios)).status).toBe(401)
    expect(await s.ts.server.store.workspaces.accountOf('max@example.com')).toBeUndefined()
  })

  it('makes invitations that live in the shared state', async () => {
    const made = await as('ada@example.com').send(inviteMember, { body: { email: 'Neo@Example.com', role: 'member' } })
    expect(made.status).toBe(201)
    const { code, email, role, expiresAt } = made.body.invitation
    expect([email, role]).toEqual(['neo@example.com', 'member'])
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now() + 6 * 24 * 60 * 60_000)
    const stored = await s.ts.server.context.shared.get(`invitation:${code}`)
    expect(stored?.value).toEqual({ workspaceId: ws.id, email: 'neo@example.com', role: 'member', invitedBy: 'ada@example.com' })
  })

  it('knows nothing of another workspace’s members', async () => {
    const other = await createWorkspace(s.ts, { name: 'Other', email: 'zed@example.com' })
    const reply = await other.api.send(removeMember, { params: { email: 'ada@example.com' } })
    expect(reply.status).toBe(404)
    expect((await other.api.send(listMembers)).body.map((m: { email: string }) => m.email)).toEqual(['zed@example.com'])
    expect(s.ts.server.store.workspaces.member(ws.id, 'ada@example.com')).toBeDefined()
  })
})

describe('workspace endpoints in OSS', () => {
  const s = useServer()
  it('answers 403 Endpoint not available in OSS', async () => {
    for (const contract of [getWorkspace, listMembers] as const) {
      const reply = await s.api.send(contract)
      expect(reply.status).toBe(403)
      expect(reply.body.error).toBe('Endpoint not available in OSS')
    }
  })
})
