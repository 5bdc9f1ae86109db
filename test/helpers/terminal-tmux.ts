import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { delay, endProcess, normalizeScreen, type Terminal, type TerminalOptions } from './terminal.js'

const run = promisify(execFile)

/**
 * The command in a detached tmux session on a tmux server of its own (-S): nothing of the
 * user's tmux is touched, and kill-server ends it all. The server's config keeps a pane whose
 * command ended (so its exit status can be read) and hides the status line (so the pane is the
 * whole terminal, as with the script backend).
 */
export async function startTmuxTerminal(argv: string[], options: TerminalOptions): Promise<Terminal> {
  const scratch = await mkdtemp(join(tmpdir(), 'folio-tmux-'))
  const config = join(scratch, 'tmux.conf')
  await writeFile(config, 'set -g remain-on-exit on\nset -g status off\n')
  // In the scratch folder: tmux leaves its socket file behind when its server ends.
  const socket = join(scratch, 'socket')
  const session = 'test'
  const tmux = async (...args: string[]) => (await run('tmux', ['-f', config, '-S', socket, ...args])).stdout

  const start = ['new-session', '-d', '-s', session, '-x', String(options.cols), '-y', String(options.rows)]
  if (options.cwd) start.push('-c', options.cwd)
  await tmux(...start, ...argv)
  const [pid, serverPid] = (await tmux('display-message', '-p', '-t', session, '#{pane_pid} #{pid}')).trim().split(' ').map(Number) as [number, number]
  let ended: number | null = null
  let stopped = false

  async function exitCode(): Promise<number | null> {
    if (ended !== null || stopped) return ended
    const [dead, status, signal] = (await tmux('display-message', '-p', '-t', session, '#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}'))
      .trim()
      .split(':')
    if (dead !== '1') return null
    // The pane is dead as soon as the pty closes; the status follows when tmux reaps the process.
    if (!status && !signal) {
      remindServerToReap()
      return null
    }
    ended = signal ? 128 + Number(signal) : Number(status)
    return ended
  }

  /**
   * tmux before 3.6 built with libutempter (Debian's and Ubuntu's are) sets SIGCHLD to SIG_DFL
   * while it runs utempter's helper, which it does as soon as a pane's pty closes. A command
   * whose end reaches tmux a little after its pty closed (a node program's often comes a
   * millisecond later) ends inside that window, the kernel drops its SIGCHLD, and tmux never
   * reaps it: the pane stays dead with no exit status, the command a zombie, until some other
   * child of the server ends (tmux issues 311 and 4559; 3.6 fixed it by sending itself SIGCHLD).
   * Sending it from here does the same: the server's handler reaps every ended child and notes
   * its status. When nothing was lost, the handler finds nothing to reap.
   */
  function remindServerToReap() {
    try {
      process.kill(serverPid, 'SIGCHLD')
    } catch {
      // The server has gone; the next display-message says so.
    }
  }

  return {
    backend: 'tmux',
    pid,
    async send(bytes) {
      const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes
      if (data.length === 0) return
      // -H: each argument is one byte, written to the pane as is, all in one write.
      await tmux('send-keys', '-t', session, '-H', ...Array.from(data, (byte) => byte.toString(16)))
    },
    async screen() {
      return normalizeScreen((await tmux('capture-pane', '-p', '-t', session)).split('\n'))
    },
    async styled() {
      // -e keeps each cell's style as escape sequences; only a reset (or nothing) means plain text.
      const styledScreen = await tmux('capture-pane', '-p', '-e', '-t', session)
      return [...styledScreen.matchAll(/\x1b\[([\d;]*)m/g)].some((m) => m[1] !== '' && m[1] !== '0')
    },
    async resize(cols, rows) {
      await tmux('resize-window', '-t', session, '-x', String(cols), '-y', String(rows))
    },
    exitCode,
    async stop() {
      if (stopped) return
      if ((await exitCode()) === null) {
        await endProcess(pid)
        // Its exit status, while the server that holds it is still there.
        for (const deadline = Date.now() + 2000; (await exitCode()) === null && Date.now() < deadline; ) await delay(20)
      }
      stopped = true
      await tmux('kill-server').catch(() => {})
      await rm(scratch, { recursive: true, force: true })
    },
  }
}
