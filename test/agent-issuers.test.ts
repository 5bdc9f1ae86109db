import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentAuth } from '../src/api/agent-auth.js'
import { getFolio, listFolios } from '../src/api/files.js'
import { loadTrustedIssuers } from '../src/server/accounts/identity-assertions.js'
import { testApi } from './helpers/api.js'
import { makeDataDir } from './helpers/server.js'
import { useServer } from './helpers/use-server.js'
import { createWorkspace, type TestWorkspace } from './helpers/workspaces.js'

const SECRET = 'a shared secret of at least thirty-two characters'
const keyPair = await generateKeyPair('RS256')
const jwksDir = await makeDataDir()
const jwksFile = join(jwksDir, 'jwks.json')
await writeFile(jwksFile, JSON.stringify({ keys: [{ ...(await exportJWK(keyPair.publicKey)), kid: 'k1', alg: 'RS256' }] }))

afterAll(() => rm(jwksDir, { recursive: true, force: true }))

const issuers = JSON.stringify({
  'https://hs.example': { secret: SECRET, audience: 'folio' },
  'https://rs.example': { jwks: jwksFile },
})

const s = useServer({ mode: 'cloud', config: { agentIssuers: issuers } })
let first: TestWorkspace
let firstFolio: string
beforeAll(async () => {
  first = await createWorkspace(s.ts, { name: 'First', email: 'owner@example.com' })
  firstFolio = await first.api.create('First’s folio')
})

const hs256 = (claims: Record<string, unknown>, secret = SECRET) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('https://hs.example')
    .setAudience('folio')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(secret))
const rs256 = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer('https://rs.example').setIssuedAt().sign(keyPair.privateKey)
const register = (assertion: string) => s.api.send(agentAuth, { body: { type: 'identity_assertion', assertion } })

describe('FOLIO_AGENT_ISSUERS: signed assertions of trusted issuers', () => {
  it('maps a verified address to the existing account’s workspace (HS256)', async () => {
    const reply = await register(await hs256({ email: 'owner@example.com', sub: 'u1' }))
    expect(reply.status).toBe(200)
    expect(reply.body.credential.organization).toEqual({ id: first.id, name: 'First', plan: 'free' })
    const agent = testApi(s.ts.url, { key: reply.body.credential.access_token })
    expect((await agent.send(getFolio, { params: { id: firstFolio } })).status).toBe(200)
  })

  it('gives a verified address without an account a workspace it owns (JWKS file, RS256)', async () => {
    const reply = await register(await rs256({ email: 'fresh@example.com' }))
    expect(reply.status).toBe(200)
    expect(reply.body.credential.organization.id).not.toBe(first.id)
    expect((await testApi(s.ts.url, { key: reply.body.credential.access_token }).send(listFolios)).status).toBe(200)
    expect(await s.ts.server.store.workspaces.accountOf('fresh@example.com')).toEqual({
      email: 'fresh@example.com',
      workspaces: [{ id: reply.body.credential.organization.id, role: 'owner' }],
    })
  })

  it('refuses a wrong signature, a wrong audience, an expired token and an unknown issuer', async () => {
    const expired = await new SignJWT({ email: 'owner@example.com' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://hs.example')
      .setAudience('folio')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(SECRET))
    const wrongAudience = await new SignJWT({ email: 'owner@example.com' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://hs.example')
      .setAudience('other')
      .sign(new TextEncoder().encode(SECRET))
    const unknownIssuer = await new SignJWT({ email: 'owner@example.com' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://evil.example')
      .sign(new TextEncoder().encode(SECRET))
    // An HS256 token claiming the RS256 issuer, signed with its public key's bytes, must not pass.
    const confused = await new SignJWT({ email: 'owner@example.com' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://rs.example')
      .sign(new TextEncoder().encode(JSON.stringify(await exportJWK(keyPair.publicKey))))
    for (const assertion of [
      await hs256({ email: 'owner@example.com' }, 'another secret that is long enough!!'),
      expired,
      wrongAudience,
      unknownIssuer,
      confused,
    ]) {
      const reply = await register(assertion)
      expect([reply.status, reply.body.error]).toEqual([401, 'assertion verification failed'])
    }
  })
})

describe('loadTrustedIssuers', () => {
  it('refuses what it cannot use, loudly', () => {
    expect(() => loadTrustedIssuers('{not json')).toThrow(/not JSON/)
    expect(() => loadTrustedIssuers('{"https://a": {"secret": "short"}}')).toThrow(/at least 32/)
    expect(() => loadTrustedIssuers('[]')).toThrow(/must be an object/)
    expect(() => loadTrustedIssuers('/no/such/issuers.json')).toThrow(/cannot read \/no\/such\/issuers.json \(ENOENT\)/)
    expect(loadTrustedIssuers(undefined).size).toBe(0)
  })
})
