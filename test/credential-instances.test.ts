import { afterEach, expect, it } from 'vitest'
import { CredentialIndex } from '../src/server/auth/credential-index.js'
import { startInstances } from './helpers/instances.js'

/**
 * Credentials kept in SharedState and mirrored in each instance's memory (sign-in sessions,
 * agent tokens, pre-claim keys, OAuth grants and tokens), over two instances that share the
 * state and the change feed (test/helpers/instances.ts).
 */

let running: Awaited<ReturnType<typeof startInstances>> | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

const delivered = () => new Promise((resolve) => setImmediate(resolve))

it('finds on B a credential made on A once asked, and drops it on B when A removes it', async () => {
  running = await startInstances(2)
  const [a, b] = running.instances.map(({ store }) => new CredentialIndex<{ who: string }>(running!.shared, 'signin:session:', store.changes))
  await a!.put('h1', { who: 'ann' }, Date.now() + 60_000)
  await delivered()
  // Memory only, as the synchronous resolvers read it: not made here.
  expect(b!.find('h1')).toBeUndefined()
  expect(await b!.lookup('h1')).toEqual({ who: 'ann' })
  expect(b!.find('h1')).toEqual({ who: 'ann' })
  await a!.remove('h1')
  await delivered()
  expect(b!.find('h1')).toBeUndefined()
  expect(await b!.lookup('h1')).toBeUndefined()
  // A change on A replaces B's copy too.
  await a!.put('h2', { who: 'bo' }, Date.now() + 60_000)
  await b!.lookup('h2')
  await a!.put('h2', { who: 'bo, renamed' }, Date.now() + 60_000)
  await delivered()
  expect(await b!.lookup('h2')).toEqual({ who: 'bo, renamed' })
  // Another prefix's changes leave these alone.
  const other = new CredentialIndex<{ who: string }>(running.shared, 'agent:token:', running.instances[0]!.store.changes)
  await other.put('h2', { who: 'x' }, Date.now() + 60_000)
  await delivered()
  expect(b!.find('h2')).toEqual({ who: 'bo, renamed' })
})

it('reads every credential again after a gap: one removed meanwhile is gone', async () => {
  running = await startInstances(2)
  const [a, b] = running.instances.map(({ store }) => new CredentialIndex<{ who: string }>(running!.shared, 'agent:token:', store.changes))
  await a!.put('h1', { who: 'ann' }, Date.now() + 60_000)
  await b!.lookup('h1')
  running.instances[1]!.bus.disconnect()
  await a!.remove('h1')
  await a!.put('h3', { who: 'cy' }, Date.now() + 60_000)
  await delivered()
  expect(b!.find('h1')).toEqual({ who: 'ann' })
  running.instances[1]!.bus.reconnect()
  await new Promise((resolve) => setTimeout(resolve, 20))
  expect(b!.find('h1')).toBeUndefined()
  expect(b!.find('h3')).toEqual({ who: 'cy' })
})

it('lists every instance’s credentials on each (a workspace’s sessions, a grant’s tokens to revoke)', async () => {
  running = await startInstances(2)
  const [a, b] = running.instances.map(({ store }) => new CredentialIndex<{ who: string }>(running!.shared, 'signin:session:', store.changes))
  await a!.put('h1', { who: 'ann' }, Date.now() + 60_000)
  await b!.put('h2', { who: 'bo' }, Date.now() + 60_000)
  for (const index of [a!, b!]) expect((await index.all()).map((e) => e.value.who).sort()).toEqual(['ann', 'bo'])
  await a!.remove('h2')
  expect((await b!.all()).map((e) => e.value.who)).toEqual(['ann'])
})

it('never reads SharedState on a miss when it is the only instance', async () => {
  running = await startInstances(1)
  const alone = new CredentialIndex<{ who: string }>(running.shared, 'agent:token:')
  await running.shared.set('agent:token:h9', { who: 'written behind its back' }, Date.now() + 60_000)
  expect(await alone.lookup('h9')).toBeUndefined()
})
