import { execFile } from 'node:child_process'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliEnv, runCli } from './helpers/cli.js'
import { BIN } from './helpers/cli-process.js'
import { useServer } from './helpers/use-server.js'

// Issue 11: shell completion generated from the commander tree, folio ids from the server.
const s = useServer()
let work: string
let bashScript: string
const run = promisify(execFile)

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-completion-'))
  // The scripts call `folio`: a folio on the PATH, as an installed one would be.
  await writeFile(join(work, 'folio'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
  await chmod(join(work, 'folio'), 0o755)
  bashScript = join(work, 'folio.bash')
  await writeFile(bashScript, (await runCli(['completion', 'bash'])).stdout)
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

/** What a real bash offers for Tab after `line` (the words typed, the last one being completed). */
async function bashComplete(words: string[], env: Record<string, string> = {}): Promise<string[]> {
  const quoted = ['folio', ...words].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ')
  const script = `source '${bashScript}'\nCOMP_WORDS=(${quoted})\nCOMP_CWORD=${words.length}\n_folio_complete\nprintf '%s\\n' "\${COMPREPLY[@]}"`
  const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', script], {
    env: cliEnv({ PATH: `${work}:${process.env.PATH}`, FOLIO_URL: s.ts.url, ...env }),
  })
  return stdout.split('\n').filter(Boolean)
}

describe('folio completion', () => {
  it('prints a script for bash, zsh and fish with how to install it; other shells are a usage error', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const result = await runCli(['completion', shell])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`folio __complete ${shell} --`)
      expect(result.stdout).toMatch(/Install it with/)
    }
    expect((await runCli(['completion', 'tcsh'])).code).toBe(2)
    expect((await runCli(['completion'])).code).toBe(2)
    const help = await runCli(['completion', '--help'])
    for (const line of [
      'folio completion bash > ~/.local/share/bash-completion/completions/folio',
      'folio completion zsh > "${fpath[1]}/_folio"',
      'folio completion fish > ~/.config/fish/completions/folio.fish',
    ]) {
      expect(help.stdout).toContain(line)
    }
    expect((await runCli(['--help'])).stdout).toContain('folio completion --help')
  })

  it('completes commands, options and choices in a real bash, from the commander tree', async () => {
    expect(await bashComplete(['sy'])).toEqual(['sync'])
    expect(await bashComplete(['pu'])).toEqual(['publish', 'pull'])
    const commands = await bashComplete([''])
    for (const name of ['serve', 'create', 'sync', 'publish', 'unpublish', 'set', 'rm', 'logout', 'whoami', 'completion']) expect(commands).toContain(name)
    expect(commands).not.toContain('__complete')
    expect(await bashComplete(['sync', '--d'])).toEqual(['--debounce', '--dry-run'])
    expect(await bashComplete(['set', '--mo'])).toEqual(['--mode', '--moderation'])
    expect(await bashComplete(['set', 'x', '--mode', 'd'])).toEqual(['deck', 'document', 'dashboard'])
    expect(await bashComplete(['tunnel', ''])).toEqual(['start', 'stop', 'status'])
    // Global options before the command, and their values, are skipped over.
    expect(await bashComplete(['--server', s.ts.url, 'keys', 'r'])).toEqual(['rotate', 'revoke'])
    expect(await bashComplete(['--js'])).toEqual(['--json'])
  })

  it("completes a folio id with the server's ids, and gives the shell its file names elsewhere", async () => {
    const ids = [await s.api.create('Completed deck'), await s.api.create('Completed doc')]
    const offered = await bashComplete(['open', ''])
    for (const id of ids) expect(offered).toContain(id)
    expect(await bashComplete(['publish', ids[0]!.slice(0, 6)])).toContain(ids[0])
    // The server named on the line is the one asked.
    expect(await bashComplete(['--server', s.ts.url, 'rm', ''], { FOLIO_URL: 'http://127.0.0.1:9' })).toEqual(expect.arrayContaining(ids))
    // A folder (sync's second word), or an id when the server is away: nothing from folio, so bash lists files.
    expect(await bashComplete(['sync', ids[0]!, ''])).toEqual([])
    const started = Date.now()
    expect(await bashComplete(['open', ''], { FOLIO_URL: 'http://127.0.0.1:9' })).toEqual([])
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('answers zsh and fish with descriptions in their formats', async () => {
    const id = await s.api.create('Described: yes')
    const fish = await runCli(['__complete', 'fish', '--', 'versions', ''], { FOLIO_URL: s.ts.url })
    expect(fish.stdout.split('\n')).toContain(`${id}\tDescribed: yes`)
    const zsh = await runCli(['__complete', 'zsh', '--', 'versions', ''], { FOLIO_URL: s.ts.url })
    expect(zsh.stdout.split('\n')).toContain(`${id}:Described: yes`)
    expect((await runCli(['__complete', 'zsh', '--', 'wh'])).stdout).toBe(
      'whoami:which server and key the commands use, where each comes from, and whether the s…\n',
    )
    expect((await runCli(['__complete', 'fish', '--', 'create', '--mode', 'sp'])).stdout).toBe('spreadsheet\n')
  })
})
