import { execFileSync } from 'node:child_process'
import { chmod, chown, mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { type RunAs, runCli, spawnCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

/**
 * A file the folder has but cannot read is an error to report, with its path and the reason;
 * never a deletion. The rest still goes, and the exit code says that something did not.
 */

const s = useServer()
let work: string
const cleanups: Array<() => unknown> = []

/**
 * Root reads a file whatever its mode, so as root the CLI runs as nobody, for whom chmod 000
 * denies (EACCES) just as it does for the user who runs the tests otherwise.
 */
const NOBODY = 65534
const asSomeone: RunAs = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-unreadable-'))
  await chmod(work, 0o755)
  await mkdir(join(work, 'config'))
  if (asSomeone.uid !== undefined) await chown(join(work, 'config'), NOBODY, NOBODY)
})
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
  await rm(work, { recursive: true, force: true })
})

const env = () => ({ FOLIO_CONFIG_DIR: join(work, 'config') })
const cli = (args: string[]) => runCli(['--server', s.ts.url, ...args], env(), asSomeone)
const watchCli = (args: string[]) => spawnCli(['--server', s.ts.url, ...args], env(), asSomeone)
const synced = (line: string) => line.startsWith('{') && JSON.parse(line).event === 'synced'
const parse = (line: string) => JSON.parse(line)
const latest = async (id: string): Promise<Record<string, string>> =>
  (await s.api.send(getFolio, { params: { id }, query: { files: 'latest' } })).body.versions.at(-1).files

async function site(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(work, name)
  await mkdir(dir)
  for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text)
  return dir
}

describe('an unreadable file', () => {
  it('permission denied: create reports it, sync and the watcher never delete it, the exit codes say so', async () => {
    const dir = await site('denied', { 'index.html': '<h1>home</h1>', 'about.html': '<h1>about</h1>', 'secret.html': '<p>secret</p>' })
    const secret = join(dir, 'secret.html')
    await chmod(secret, 0o000)

    // create: the folio is made with the rest, and the file it could not read is an error (exit 1).
    const created = await cli(['create', 'Denied', '--dir', dir, '--json'])
    expect(created.code).toBe(1)
    const id = created.json().id as string
    expect(created.stderr).toContain(`Created ${id} without 1 file(s) it could not read: secret.html (permission denied (EACCES))`)
    expect(Object.keys(await latest(id)).sort()).toEqual(['about.html', 'index.html'])

    await chmod(secret, 0o644)
    expect((await cli(['sync', id, dir, '--json'])).json()).toMatchObject({ versionId: 'v2', added: 1, paths: ['secret.html'], notPushed: [] })

    // sync: unreadable again, and an edit elsewhere. The edit goes; the folio keeps secret.html.
    await chmod(secret, 0o000)
    await writeFile(join(dir, 'index.html'), '<h1>home, edited</h1>')
    const partly = await cli(['sync', id, dir])
    expect(partly.code).toBe(1)
    expect(partly.stdout).toMatch(/^v3 ← 1 changed .*: index\.html$/m)
    expect(partly.stdout).toContain('not pushed: secret.html: cannot read it (permission denied (EACCES)); the folio keeps the copy it has.')
    expect(partly.stdout).not.toContain('deleted')
    expect(partly.stderr).toContain('folio: Not pushed: secret.html (cannot read it: permission denied (EACCES)). Everything else is in v3.')
    expect(await latest(id)).toMatchObject({ 'index.html': '<h1>home, edited</h1>', 'secret.html': '<p>secret</p>' })

    // The watcher: listed on every push while unreadable, never deleted; pushed once readable.
    const watch = watchCli(['sync', id, dir, '--watch', '--json', '--debounce', '100'])
    cleanups.push(() => watch.child.kill('SIGKILL'))
    expect(parse(await watch.waitForLine(synced))).toMatchObject({
      versionId: 'v3',
      changed: false,
      notPushed: [{ path: 'secret.html', problem: 'unreadable', reason: 'permission denied (EACCES)' }],
    })
    await watch.waitForLine((l) => l.includes('"event":"watching"'))
    let mark = watch.lines.length
    await writeFile(join(dir, 'about.html'), '<h1>about, edited</h1>')
    expect(parse(await watch.waitForLine(synced, 15_000, mark))).toMatchObject({
      versionId: 'v4',
      paths: ['about.html'],
      deletedPaths: [],
      notPushed: [{ path: 'secret.html' }],
    })
    expect(await latest(id)).toMatchObject({ 'secret.html': '<p>secret</p>' })

    // Readable again: off the list at the next push, which the folio's copy already matches.
    mark = watch.lines.length
    await chmod(secret, 0o644)
    await writeFile(join(dir, 'index.html'), '<h1>home, edited twice</h1>')
    const cleared = parse(await watch.waitForLine((l) => synced(l) && parse(l).paths.includes('index.html'), 15_000, mark))
    expect(cleared).toMatchObject({ notPushed: [] })
    expect(await latest(id)).toMatchObject({ 'secret.html': '<p>secret</p>', 'index.html': '<h1>home, edited twice</h1>' })

    // Ctrl+C with everything pushed: 0.
    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)

    // Ctrl+C with a file not pushed: 130, and it says which and why.
    await chmod(secret, 0o000)
    const stopped = watchCli(['sync', id, dir, '--watch', '--debounce', '100'])
    cleanups.push(() => stopped.child.kill('SIGKILL'))
    await stopped.waitForLine((l) => l.startsWith('Watching'))
    stopped.child.kill('SIGINT')
    expect(await stopped.exited).toBe(130)
    expect(stopped.stderr()).toContain('Stopped with files not pushed: secret.html (cannot read it: permission denied (EACCES)).')
    expect(await latest(id)).toMatchObject({ 'secret.html': '<p>secret</p>' })
  })

  it('an unreadable folder: its files stay in the folio, and the watcher neither fails to start nor crashes', async () => {
    const dir = await site('closed', { 'index.html': '<h1>closed</h1>' })
    await mkdir(join(dir, 'private'))
    await writeFile(join(dir, 'private', 'plan.html'), '<p>plan</p>')
    const created = await cli(['create', 'Closed', '--dir', dir, '--json'])
    const id = created.json().id as string
    expect(Object.keys(await latest(id)).sort()).toEqual(['index.html', 'private/plan.html'])

    await chmod(join(dir, 'private'), 0o000)
    cleanups.push(() => chmod(join(dir, 'private'), 0o755))
    await writeFile(join(dir, 'index.html'), '<h1>closed, edited</h1>')
    const partly = await cli(['sync', id, dir])
    expect(partly.code).toBe(1)
    expect(partly.stdout).toContain('not pushed: private/: cannot read it (permission denied (EACCES)); the folio keeps the copy it has.')
    expect(await latest(id)).toEqual({ 'index.html': '<h1>closed, edited</h1>', 'private/plan.html': '<p>plan</p>' })

    const watch = watchCli(['sync', id, dir, '--watch', '--json', '--debounce', '100'])
    cleanups.push(() => watch.child.kill('SIGKILL'))
    expect(parse(await watch.waitForLine(synced))).toMatchObject({ changed: false, notPushed: [{ path: 'private/', problem: 'unreadable' }] })
    await watch.waitForLine((l) => l.includes('"event":"watching"'))
    await writeFile(join(dir, 'index.html'), '<h1>closed, edited twice</h1>')
    expect(parse(await watch.waitForLine((l) => synced(l) && parse(l).changed, 15_000))).toMatchObject({
      paths: ['index.html'],
      deletedPaths: [],
      notPushed: [{ path: 'private/' }],
    })
    expect(await latest(id)).toEqual({ 'index.html': '<h1>closed, edited twice</h1>', 'private/plan.html': '<p>plan</p>' })

    // Readable again: the next push compares the whole folder (an edit made in there while it
    // was closed goes too), and from then on the watcher sees inside it.
    await chmod(join(dir, 'private'), 0o755)
    await writeFile(join(dir, 'private', 'plan.html'), '<p>plan, edited</p>')
    let mark = watch.lines.length
    await writeFile(join(dir, 'index.html'), '<h1>closed, edited three times</h1>')
    expect(parse(await watch.waitForLine((l) => synced(l) && parse(l).paths.includes('private/plan.html'), 15_000, mark))).toMatchObject({ notPushed: [] })
    mark = watch.lines.length
    await writeFile(join(dir, 'private', 'plan.html'), '<p>plan, edited twice</p>')
    expect(parse(await watch.waitForLine(synced, 15_000, mark))).toMatchObject({ paths: ['private/plan.html'] })
    expect(await latest(id)).toEqual({ 'index.html': '<h1>closed, edited three times</h1>', 'private/plan.html': '<p>plan, edited twice</p>' })
    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)
  })

  it('a link to nothing and a named pipe are reported, not deleted, and never opened; a link to a file is followed', async () => {
    const dir = await site('links', { 'index.html': '<h1>links</h1>', 'style.css': 'h1{color:teal}' })
    await writeFile(join(work, 'shared.css'), 'p{margin:0}')
    await symlink(join(work, 'shared.css'), join(dir, 'shared.css'))
    const created = await cli(['create', 'Links', '--dir', dir, '--json'])
    expect(created.code).toBe(0)
    const id = created.json().id as string
    expect(Object.keys(await latest(id)).sort()).toEqual(['index.html', 'shared.css', 'style.css'])

    // style.css now points at a drive that is not there; feed.html is a named pipe (reading one blocks).
    await unlink(join(dir, 'style.css'))
    await symlink(join(work, 'unmounted', 'style.css'), join(dir, 'style.css'))
    execFileSync('mkfifo', [join(dir, 'feed.html')])
    await writeFile(join(dir, 'index.html'), '<h1>links, edited</h1>')
    const partly = await cli(['sync', id, dir, '--json'])
    expect(partly.code).toBe(1)
    expect(partly.json()).toMatchObject({
      versionId: 'v2',
      paths: ['index.html'],
      deletedPaths: [],
      notPushed: [
        { path: 'feed.html', problem: 'unreadable', reason: 'a named pipe, not a file that can be published' },
        { path: 'style.css', problem: 'unreadable', reason: `a symbolic link to ${join(work, 'unmounted', 'style.css')}, which does not exist` },
      ],
    })
    expect(await latest(id)).toMatchObject({ 'style.css': 'h1{color:teal}', 'index.html': '<h1>links, edited</h1>' })

    // The watcher hears the link replace the file (an unlink, for chokidar): still not a deletion.
    const watch = watchCli(['sync', id, dir, '--watch', '--json', '--debounce', '100'])
    cleanups.push(() => watch.child.kill('SIGKILL'))
    await watch.waitForLine((l) => l.includes('"event":"watching"'))
    const mark = watch.lines.length
    await unlink(join(dir, 'shared.css'))
    await symlink(join(work, 'missing.css'), join(dir, 'shared.css'))
    await writeFile(join(dir, 'index.html'), '<h1>links, edited twice</h1>')
    // chokidar may report the save and the link's replacement in one burst or in two pushes (a
    // busy machine): wait for the push that knows of the dangling link, and for the save's push.
    const pushed = parse(await watch.waitForLine((l) => synced(l) && parse(l).notPushed.some((n: { path: string }) => n.path === 'shared.css'), 15_000, mark))
    await watch.waitForLine((l) => synced(l) && parse(l).paths.includes('index.html'), 15_000, mark)
    expect(pushed.notPushed.map((n: { path: string }) => n.path)).toEqual(['feed.html', 'shared.css', 'style.css'])
    expect(
      watch.lines
        .slice(mark)
        .filter(synced)
        .flatMap((l) => parse(l).deletedPaths),
    ).toEqual([])
    expect(Object.keys(await latest(id)).sort()).toEqual(['index.html', 'shared.css', 'style.css'])
    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(130)
  })
})
