import { beforeAll, describe, expect, it } from 'vitest'
import { contracts, type Contract } from '../src/api/index.js'
import { createComment } from '../src/api/engagement.js'
import { createFolio, getFolio, listFolios } from '../src/api/files.js'
import { getIntegrations, setIntegrations } from '../src/api/integrations.js'
import { getKey } from '../src/api/keys.js'
import type { SendInput, TestApi } from './helpers/api.js'
import { tinyPng } from './helpers/images.js'
import { createWorkspace, type TestWorkspace, useCloudServer } from './helpers/workspaces.js'

type OperationId = (typeof contracts)[number]['operationId']

/**
 * What workspace B may do with workspace A's folio, endpoint by endpoint. Every contract must be
 * named here: a new endpoint without a decision fails the first test.
 *   notFound     the folio does not exist for B (404), whatever B sends
 *   asViewer     a public endpoint: B is any viewer, answered as a caller with no credential is
 *   notFolio     not about a folio: B acts in its own workspace (checked below)
 */
const TENANCY: Record<OperationId, 'notFound' | 'asViewer' | 'notFolio'> = {
  listFolios: 'notFolio',
  createFolio: 'notFolio',
  aiCreate: 'notFolio',
  aiConversation: 'notFound',
  aiStream: 'notFound',
  getWorkspaceAi: 'notFolio',
  setWorkspaceAi: 'notFolio',
  deleteWorkspaceAi: 'notFolio',
  getFolio: 'notFound',
  updateFolio: 'notFound',
  deleteFolio: 'notFound',
  getBrief: 'notFound',
  getAsset: 'notFolio',
  uploadFile: 'notFound',
  uploadBatch: 'notFound',
  getSyncManifest: 'notFound',
  syncFiles: 'notFound',
  listComments: 'asViewer',
  createComment: 'asViewer',
  resolveComment: 'asViewer',
  deleteComment: 'asViewer',
  getReactions: 'asViewer',
  react: 'asViewer',
  setReactions: 'asViewer',
  recordAnalytics: 'asViewer',
  listLinks: 'notFound',
  createLink: 'notFound',
  revokeLink: 'notFound',
  getPublicFolio: 'asViewer',
  verifyAccessKey: 'asViewer',
  folioEvents: 'asViewer',
  renewFrame: 'asViewer',
  getKey: 'notFolio',
  rotateKey: 'notFolio',
  revokeKey: 'notFolio',
  getWorkspace: 'notFolio',
  listMembers: 'notFolio',
  setMemberRole: 'notFolio',
  removeMember: 'notFolio',
  inviteMember: 'notFolio',
  agentAuth: 'notFolio',
  agentClaim: 'notFolio',
  agentClaimComplete: 'notFolio',
  requestSignInCode: 'notFolio',
  signIn: 'notFolio',
  currentSession: 'notFolio',
  signOut: 'notFolio',
  // Sessions are listed and revoked within the caller's workspace only (test/sign-in.test.ts).
  listSessions: 'notFolio',
  revokeSession: 'notFolio',
  getIntegrations: 'notFolio',
  setIntegrations: 'notFolio',
  // OAuth: discovery and the flow are about no folio; grants are the caller's workspace's
  // (test/oauth-flow.test.ts: a token of A is refused on B's folio, and A's grants are not B's).
  protectedResourceMetadata: 'notFolio',
  mcpResourceMetadata: 'notFolio',
  authorizationServerMetadata: 'notFolio',
  registerOAuthClient: 'notFolio',
  authorizeOAuth: 'notFolio',
  approveOAuth: 'notFolio',
  oauthToken: 'notFolio',
  revokeOAuthToken: 'notFolio',
  listOAuthGrants: 'notFolio',
  revokeOAuthGrant: 'notFolio',
  getTunnel: 'notFolio',
  controlTunnel: 'notFolio',
  // Its tools run the endpoints above as the caller (test/mcp-http.test.ts).
  mcp: 'notFolio',
  listDesignSystems: 'notFolio',
  getOpenApi: 'notFolio',
  getHealth: 'notFolio',
  getReadiness: 'notFolio',
  dashboardPage: 'notFolio',
  folioPage: 'asViewer',
  sharePage: 'asViewer',
  rawFile: 'asViewer',
  viewerAsset: 'notFolio',
}

/** A request each endpoint would carry out for the folio's owner: only tenancy can refuse it. */
function requestFor(operationId: string, id: string, commentId: string): SendInput<Contract> {
  const params = { id } as never
  const form = () => {
    const data = new FormData()
    data.append('file', new Blob([new Uint8Array(tinyPng())], { type: 'image/png' }), 'img/b.png')
    return data
  }
  switch (operationId) {
    case 'updateFolio':
      return { params, body: { title: 'Taken by B', files: { 'index.html': '<h1>B was here</h1>' } } }
    case 'uploadFile':
      return { params, raw: new Uint8Array(tinyPng()), headers: { 'x-file-path': 'img/b.png' } }
    case 'uploadBatch':
      return { params, raw: form() }
    case 'syncFiles':
      return { params, body: { files: { 'index.html': '<h1>B synced</h1>' } } }
    case 'createComment':
      return { params, body: { text: 'from B', versionId: 'v1', filename: 'index.html' } }
    case 'resolveComment':
      return { params, body: { commentId, resolved: true, deleted: true } }
    case 'deleteComment':
      return { params, query: { commentId } }
    case 'react':
      return { params, body: { increments: { '🔥': 1 } } }
    case 'setReactions':
      return { params, body: { reactions: { '🔥': 1000, '👍': 1000 } } }
    case 'recordAnalytics':
      return { params, body: { isInitial: true, sessionSeconds: 5 } }
    case 'verifyAccessKey':
      return { params, body: { accessKey: 'wrong' } }
    case 'createLink':
      return { params, body: { name: 'Somebody at B' } }
    case 'revokeLink':
      return { params: { id, linkId: 'AAAAAAAAAAAAAAAAAAAAAA' } as never }
    case 'aiConversation':
    case 'aiStream':
      return { params, body: { userPrompt: 'Make it B’s' } }
    case 'sharePage':
      return { params, query: { preview: '1' } }
    case 'rawFile':
      return { params: { id, access: '-', path: 'index.html' } as never }
    default:
      return { params }
  }
}

/** Status (and, for streams, without waiting for the end) of one request. */
async function statusOf(api: TestApi, contract: Contract, input: SendInput<Contract>, key?: string): Promise<number> {
  const headers = { ...input.headers, ...(key ? { authorization: `Bearer ${key}` } : {}) }
  const response = await api.request(contract, { ...input, headers })
  await response.body?.cancel()
  return response.status
}

describe('tenancy: workspace B can do nothing to workspace A’s folios, by any endpoint', () => {
  const s = useCloudServer()
  let a: TestWorkspace
  let b: TestWorkspace
  let draft: string
  let published: string
  const commentOf: Record<string, string> = {}

  beforeAll(async () => {
    a = s.workspace
    b = await createWorkspace(s.ts, { name: 'B' })
    draft = (await a.api.send(createFolio, { body: { title: 'A draft', defaultFiles: { 'index.html': '<h1>A</h1>' } } })).body.project.id
    published = (await a.api.send(createFolio, { body: { title: 'A public', status: 'published', defaultFiles: { 'index.html': '<h1>A</h1>' } } })).body.project
      .id
    for (const id of [draft, published]) {
      const comment = await a.api.send(createComment, { params: { id }, body: { text: 'A’s note', versionId: 'v1', filename: 'index.html' } })
      expect(comment.status).toBe(200)
      commentOf[id] = comment.body.comment?.id ?? comment.body.id
      expect(commentOf[id]).toMatch(/^c_/)
    }
  })

  it('has a decision for every endpoint', () => {
    expect(contracts.map((c) => c.operationId).filter((op) => !(op in TENANCY))).toEqual([])
  })

  it('answers 404 on every owner endpoint, and what a stranger gets on the public ones', async () => {
    const before = await Promise.all([draft, published].map(async (id) => (await a.api.send(getFolio, { params: { id } })).body))
    for (const id of [draft, published]) {
      for (const contract of contracts) {
        const decision = TENANCY[contract.operationId]
        if (decision === 'notFolio') continue
        const input = requestFor(contract.operationId, id, commentOf[id]!)
        if (decision === 'notFound') {
          expect([contract.operationId, await statusOf(s.anonymous, contract, input, b.apiKey)]).toEqual([contract.operationId, 404])
        } else {
          // A stranger first, twice (a write may change what the same request gets next: a
          // hidden comment is gone for viewers), then B, who must get what the stranger got the
          // second time. Had B the owner's rights, it would get further: the hidden comment is
          // still there for its owner to remove.
          await statusOf(s.anonymous, contract, input)
          const stranger = await statusOf(s.anonymous, contract, input)
          expect([contract.operationId, await statusOf(s.anonymous, contract, input, b.apiKey)]).toEqual([contract.operationId, stranger])
        }
      }
    }
    const after = await Promise.all([draft, published].map(async (id) => (await a.api.send(getFolio, { params: { id } })).body))
    for (const [i, folio] of after.entries()) {
      expect(folio.title).toBe(before[i].title)
      expect(folio.versions.length).toBe(before[i].versions.length)
      expect(folio.versions.at(-1).files).toEqual(before[i].versions.at(-1).files)
    }
    // The draft: nothing reached it. The published folio: only what any viewer may do (one step
    // of each reaction per request, a viewer's hide that the owner still sees and can undo).
    expect(after[0].comments.map((c: { text: string; resolved: boolean }) => [c.text, c.resolved])).toEqual([['A’s note', false]])
    expect(after[0].reactions['🔥'] ?? 0).toBe(0)
    // A viewer's delete hides; only the owner removes for good: A still has its note.
    expect(after[1].comments.map((c: { text: string }) => c.text)).toContain('A’s note')
    // Three viewer requests (the stranger twice, then B): three steps, never the 1,000 an owner sets.
    expect(after[1].reactions['👍']).toBe(3)
  })

  it('keeps the endpoints that are not about one folio to B’s own workspace', async () => {
    const list = await b.api.send(listFolios)
    expect(list.status).toBe(200)
    expect(list.body.map((f: { id: string }) => f.id)).not.toContain(draft)
    expect(list.body.map((f: { id: string }) => f.id)).not.toContain(published)
    const mine = await b.api.send(createFolio, { body: { title: 'B’s own' } })
    expect(mine.status).toBe(201)
    expect((await a.api.send(getFolio, { params: { id: mine.body.project.id } })).status).toBe(404)
    expect((await b.api.send(getKey)).body).toEqual({ apiKey: b.apiKey })
    expect((await b.api.send(setIntegrations, { body: { integrations: [{ url: 'https://hooks.slack.com/services/B/b/b' }] } })).status).toBe(200)
    expect((await a.api.send(getIntegrations)).body.integrations).toEqual([])
    // A is untouched by anything B did to its own key.
    expect((await a.api.send(listFolios)).body.map((f: { id: string }) => f.id).sort()).toEqual([draft, published].sort())
  })
})
