import type { Command } from 'commander'
import { listFolios } from '../../api/files.js'
import { createClient } from '../../client/index.js'
import { type Candidate, formatCandidates, type Shell, wanted } from '../completion.js'
import { COMPLETION_SCRIPTS } from '../completion-scripts.js'
import { printResult } from '../logger.js'
import { targetHere } from '../context.js'

/** A Tab must not hang on a server that is away: ids only when it answers this fast. */
const IDS_TIMEOUT_MS = 1000

export const printScript = (shell: Shell) => {
  process.stdout.write(COMPLETION_SCRIPTS[shell])
}

/** The server's folio ids, newest first, titled; none when it cannot tell us in time. */
async function folioIds(flags: { server?: string; key?: string }): Promise<Candidate[]> {
  try {
    const target = await targetHere(flags)
    const folios = await createClient({ server: target.server, key: target.key }).call(listFolios, {}, IDS_TIMEOUT_MS)
    return folios.map((f) => ({ value: f.id, description: f.title }))
  } catch {
    return []
  }
}

export async function complete(shell: Shell, words: string[], _options: unknown, command: Command): Promise<void> {
  const typed = words.length ? words : ['']
  const want = wanted(command.parent!, typed)
  const candidates = want.kind === 'words' ? want.candidates : want.kind === 'ids' ? await folioIds(want.flags) : []
  const text = formatCandidates(shell, typed.at(-1)!, candidates)
  if (text) printResult(text)
}
