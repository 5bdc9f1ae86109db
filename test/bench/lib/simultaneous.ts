import { execFileSync } from 'node:child_process'
import { cpus } from 'node:os'
import { load, type LoadResult, type Target } from './autocannon.js'

/**
 * One round of load on every target at the same time, the connections shared out between them.
 *
 * For one server compared with itself on other data (a store of 10 folios vs 10,000). On this
 * shared 2-core machine an alternating comparison swings by a third either way: another
 * process's burst lands in one target's rounds and not the other's (one server measured 14k,
 * 61k and 29k req/s in three rounds of one run). Loaded together, both meet it in the same
 * seconds. Two more things differ between two processes of the same server: where the
 * scheduler puts them (pinToOneCore puts both on the same core, with the same neighbours) and
 * their own state (JIT, heap sizing: identical servers loaded together kept a 10–20% gap for
 * a whole run); a fresh pair per round, in alternating order, takes a new draw each round.
 */
export async function loadTogether(targets: Target[], options: { connections: number; duration: number }): Promise<LoadResult[]> {
  const connections = Math.max(1, Math.round(options.connections / targets.length))
  return Promise.all(targets.map((t) => load(t, { connections, duration: options.duration })))
}

/**
 * Puts every thread of these processes on the machine's last core, when there are two or more
 * and util-linux's taskset is there (else they stay where they are: the figures are only noisier).
 */
export function pinToOneCore(pids: number[]): boolean {
  const core = cpus().length - 1
  if (core < 1) return false
  try {
    for (const pid of pids) execFileSync('taskset', ['-a', '-cp', String(core), String(pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
