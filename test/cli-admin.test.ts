import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listFolios } from '../src/api/files.js'
import { getWorkspace } from '../src/api/workspace.js'
import { testApi } from './helpers/api.js'
import { runCli } from './helpers/cli.js'
import { makeDataDir, startTestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'

describe('folio admin', () => {
  it('creates and lists workspaces, changes a plan, shows members and usage on a stopped server’s data dir', async () => {
    const dataDir = await makeDataDir()
    const made = await runCli(['admin', 'workspace', 'create', '--name', 'Acme', '--plan', 'pro', '--owner', 'Ann@Acme.test', '--data', dataDir, '--json'])
    expect(made.code).toBe(0)
    const { workspace, apiKey } = made.json()
    expect(workspace).toMatchObject({ name: 'Acme', plan: 'pro' })
    expect(apiKey).toMatch(/^folio_live_[0-9a-f]{48}$/)

    const listed = await runCli(['admin', 'workspace', 'list', '--data', dataDir])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`${workspace.id}\\s+Acme\\s+pro\\s+1\\s+active`))
    const plan = await runCli(['admin', 'workspace', 'plan', workspace.id, 'team', '--data', dataDir])
    expect(plan.stdout).toContain('is on the team plan now')
    const wrongPlan = await runCli(['admin', 'workspace', 'plan', workspace.id, 'gold', '--data', dataDir, '--json'])
    expect(wrongPlan.code).toBe(2)
    expect(wrongPlan.json()).toMatchObject({ error: 'invalid', message: expect.stringContaining('No plan "gold": the plans are free, pro, team') })
    const unknown = await runCli(['admin', 'workspace', 'members', '00000000-0000-0000-0000-000000000000', '--data', dataDir])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('No workspace 00000000-0000-0000-0000-000000000000')
    expect((await runCli(['admin', 'workspace', 'members', workspace.id, '--data', dataDir, '--json'])).json()).toEqual([
      { email: 'ann@acme.test', role: 'owner', joinedAt: expect.any(String) },
    ])
    const usage = (await runCli(['admin', 'usage', '--data', dataDir, '--json'])).json()
    expect(usage).toEqual([
      { id: workspace.id, name: 'Acme', plan: 'team', storageBytes: 0, storageLimit: 100 * 1024 ** 3, aiMessagesThisMonth: null, aiMessagesLimit: 10_000 },
    ])

    // The key made offline works once the server runs, on the plan set offline.
    const ts = await startTestServer({ mode: 'cloud', dataDir })
    try {
      const info = await testApi(ts.url, { key: apiKey }).send(getWorkspace)
      expect(info.body).toMatchObject({ id: workspace.id, plan: 'team' })
    } finally {
      await closeClean(ts)
    }
  })

  it('asks a running server through its loopback API, with the token only its owner can read', async () => {
    const ts = await startTestServer({ mode: 'cloud' })
    try {
      const adminFile = join(ts.dataDir, 'admin.json')
      expect((await stat(adminFile)).mode & 0o777).toBe(0o600)
      const made = await runCli(['admin', 'workspace', 'create', '--name', 'Live', '--data', ts.dataDir, '--json'])
      expect(made.code).toBe(0)
      const { workspace, apiKey } = made.json()
      // The running server knows the new key at once: it made it.
      expect((await testApi(ts.url, { key: apiKey }).send(listFolios)).status).toBe(200)
      await testApi(ts.url, { key: apiKey }).create('Sized', { 'index.html': 'x'.repeat(300) })
      expect((await runCli(['admin', 'workspace', 'plan', workspace.id, 'pro', '--data', ts.dataDir])).code).toBe(0)
      const usage = (await runCli(['admin', 'usage', workspace.id, '--data', ts.dataDir, '--json'])).json()
      expect(usage).toEqual([
        { id: workspace.id, name: 'Live', plan: 'pro', storageBytes: 300, storageLimit: 10 * 1024 ** 3, aiMessagesThisMonth: 0, aiMessagesLimit: 1000 },
      ])
      expect((await runCli(['admin', 'workspace', 'list', '--data', ts.dataDir, '--json'])).json()).toHaveLength(1)

      // Without the token (or from the tunnel) the operator API does not exist.
      const { token } = JSON.parse(await readFile(adminFile, 'utf8'))
      expect((await fetch(`${ts.url}/_admin/workspaces`)).status).toBe(404)
      expect((await fetch(`${ts.url}/_admin/workspaces`, { headers: { 'x-folio-admin-token': 'wrong' } })).status).toBe(404)
      expect((await fetch(`${ts.server.tunnelTarget}/_admin/workspaces`, { headers: { 'x-folio-admin-token': token } })).status).toBe(404)
      expect((await fetch(`${ts.url}/_admin/workspaces`, { headers: { 'x-folio-admin-token': token } })).status).toBe(200)
    } finally {
      await ts.stop()
      // Gone with the server that wrote it.
      await expect(stat(join(ts.dataDir, 'admin.json'))).rejects.toThrow()
      await closeClean(ts)
    }
  })

  it('says what to do when the data dir is not one, or an OSS server holds it', async () => {
    const missing = await runCli(['admin', 'workspace', 'list', '--data', '/nonexistent/folio'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('/nonexistent/folio is not a folio data folder')
    const oss = await startTestServer()
    try {
      const refused = await runCli(['admin', 'usage', '--data', oss.dataDir])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('it left no admin.json: it is not in Cloud mode')
    } finally {
      await closeClean(oss)
    }
  })
})
