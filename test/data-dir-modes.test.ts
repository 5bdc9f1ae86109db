import { LogLevels } from '../src/log/logger.js'
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createComment } from '../src/api/engagement.js'
import { getKey } from '../src/api/keys.js'
import { verifyAccessKey } from '../src/api/sharing.js'
import { CURRENT_FORMAT } from '../src/store/index.js'
import { testApi } from './helpers/api.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean, expectCleanLog, expectLogged } from './helpers/use-server.js'

/**
 * A data dir holds the server's signing secret, its API key and (in meta.json) private folios'
 * access keys. New writes are 0600 in 0700 folders; a dir written by an older folio had 0644/0755.
 */
const mode = async (path: string) => (await stat(path)).mode & 0o777

/** Every file and folder under dir (dir itself not included), with its mode. */
async function modes(dir: string, root = dir, out = new Map<string, number>()): Promise<Map<string, number>> {
  // Walked by hand: node 20's recursive readdir gives nested entries a wrong parentPath.
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    out.set(relative(root, path), await mode(path))
    if (entry.isDirectory()) await modes(path, root, out)
  }
  return out
}

/** What an older folio left behind: everything readable by others, format 3. */
async function makeItOld(dir: string): Promise<void> {
  for (const [path] of await modes(dir)) {
    const full = join(dir, path)
    await chmod(full, (await stat(full)).isDirectory() ? 0o755 : 0o644)
  }
  await chmod(dir, 0o755)
  await writeFile(join(dir, 'format.json'), JSON.stringify({ format: 3, updatedAt: new Date().toISOString() }), { mode: 0o644 })
}

let ts: TestServer | undefined
afterAll(() => closeClean(ts))

const readableWarning = (dir: string) =>
  `folio: [store] ${dir} can be read by other users of this machine, and it holds the server's secrets and private folios' access keys: run chmod 700 ${dir}`

describe('a data dir written by an older folio', () => {
  it('is made private to its owner once (data format 4), and its secrets on every start', async () => {
    ts = await startTestServer()
    const api = testApi(ts.url)
    const id = await api.create('Private', { 'index.html': '<h1>Secret plans</h1>' }, { status: 'published', isPrivate: true, accessKey: 'open sesame' })
    const key = (await api.send(getKey)).body.apiKey
    await api.send(createComment, {
      params: { id },
      headers: { authorization: `Bearer ${key}` },
      body: { text: 'hi', versionId: 'v1', filename: 'index.html' },
    })
    // A viewer proves the key: the server makes its signing secret for the grant.
    expect((await api.send(verifyAccessKey, { params: { id }, body: { accessKey: 'open sesame' } })).body).toEqual({ success: true })
    const dir = ts.dataDir
    await ts.stop()
    expectCleanLog(ts)

    await makeItOld(dir)
    const before = await modes(dir)
    expect(before.get(join('settings', 'secret.json'))).toBe(0o644)
    expect(before.get(join('folios', id, 'meta.json'))).toBe(0o644)
    expect(before.size).toBeGreaterThan(10)

    // At info: the migration says what it did.
    ts = await startTestServer({ dataDir: dir, logLevel: LogLevels.info })
    // What the migration wrote, in the files (held in the journal until its checkpoint).
    await ts.server.store.writeBack()
    const after = await modes(dir)
    // + the lock file, and the running server's write journal (a clean stop leaves its folder empty)
    expect(after.size).toBe(before.size + 2)
    expect([...after.keys()].filter((path) => path.startsWith(`.journal${'/'}`))).toHaveLength(1)
    for (const [path, m] of after) expect(m & 0o077, `${path} is ${m.toString(8)}`).toBe(0)
    expect(await mode(join(dir, 'settings', 'secret.json'))).toBe(0o600)
    expect(await mode(join(dir, 'folios'))).toBe(0o700)
    expect(JSON.parse(await readFile(join(dir, 'format.json'), 'utf8')).format).toBe(CURRENT_FORMAT)
    // The dir itself is the owner's choice (it may be a folder they share on purpose): a warning
    // that says how to close it.
    expectLogged(ts, [
      expect.stringMatching(/^\[store\] Made \d+ files and \d+ folders private to their owner \(data format 4\)\.$/) as unknown as string,
      readableWarning(dir),
    ])
    // The data still reads: the private folio's key still works.
    expect((await testApi(ts.url).send(getKey)).body.apiKey).toBe(key)
    await ts.stop()
    expectCleanLog(ts)

    // Walked once: a file opened up later is not walked to again; the secrets always are.
    const blob = [...after.keys()].find((p) => p.startsWith(`blobs${'/'}`) && after.get(p) === 0o600)!
    await chmod(join(dir, blob), 0o644)
    await chmod(join(dir, 'settings', 'secret.json'), 0o644)
    await chmod(join(dir, 'settings', 'api-key.json'), 0o640)
    ts = await startTestServer({ dataDir: dir })
    expect(await mode(join(dir, blob))).toBe(0o644)
    expect(await mode(join(dir, 'settings', 'secret.json'))).toBe(0o600)
    expect(await mode(join(dir, 'settings', 'api-key.json'))).toBe(0o600)
    expectLogged(ts, [readableWarning(dir)])
    await ts.stop()
    expectCleanLog(ts)

    // Closed as the warning says: nothing to say.
    await chmod(dir, 0o700)
    ts = await startTestServer({ dataDir: dir })
    expectCleanLog(ts)
  })
})
