import { beforeAll } from 'vitest'
import type { Role } from '../../src/domain/principal.js'
import { type TestApi, testApi } from './api.js'
import type { TestServer } from './server.js'
import { useServer } from './use-server.js'

export interface TestWorkspace {
  id: string
  name: string
  apiKey: string
  /** The API as this workspace's key holder. */
  api: TestApi
  /** `Authorization: Bearer <key>`, for send(…, { headers }). */
  auth: { authorization: string }
}

/**
 * A Cloud workspace made through the running server's own store (what `folio admin workspace
 * create` and agent registration do), with its first key.
 */
export async function createWorkspace(ts: TestServer, input: { name?: string; plan?: string; email?: string } = {}): Promise<TestWorkspace> {
  const { workspace, apiKey } = await ts.server.store.workspaces.create({
    name: input.name ?? 'Test workspace',
    plan: input.plan,
    owner: { name: 'Owner', email: input.email },
  })
  return { id: workspace.id, name: workspace.name, apiKey, api: testApi(ts.url, { key: apiKey }), auth: { authorization: `Bearer ${apiKey}` } }
}

/** Adds a member with a role to a workspace, through the store. */
export async function addMember(ts: TestServer, workspaceId: string, email: string, role: Role): Promise<void> {
  await ts.server.store.workspaces.addMember(workspaceId, { email, role })
}

/** A Cloud server for the test file (or describe), with one workspace made right after it starts. */
export function useCloudServer(options: Omit<NonNullable<Exclude<Parameters<typeof useServer>[0], () => unknown>>, 'mode'> = {}) {
  const s = useServer({ ...options, mode: 'cloud' })
  let ws: TestWorkspace | undefined
  beforeAll(async () => {
    ws = await createWorkspace(s.ts, { name: 'First', email: 'owner@example.com' })
  })
  return {
    get ts(): TestServer {
      return s.ts
    },
    /** The API without a credential. */
    get anonymous(): TestApi {
      return s.api
    },
    get workspace(): TestWorkspace {
      if (!ws) throw new Error('the workspace is made in beforeAll')
      return ws
    },
  }
}
