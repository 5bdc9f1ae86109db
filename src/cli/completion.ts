import type { Argument, Command, Option } from 'commander'

/**
 * Shell completion, computed from the commander tree at each Tab: the shell scripts
 * (completion-scripts.ts) hand the words typed so far to `folio __complete <shell> -- <words>`
 * and show what comes back. So every command, option and choice defined in commands/ completes
 * without a list kept by hand; `[id]` arguments complete with the server's folio ids.
 */
export type Shell = 'bash' | 'zsh' | 'fish'
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish']

export interface Candidate {
  value: string
  description?: string
}

/** What fills an argument position: fixed words, the server's folio ids, or nothing (the shell completes file names). */
export type Wanted = { kind: 'words'; candidates: Candidate[] } | { kind: 'ids'; flags: { server?: string; key?: string } } | { kind: 'files' }

const visible = (command: Command) => command.createHelp()
const takesValue = (option: Option) => option.required || option.optional
/** Descriptions beside candidates stay on one short line. */
function firstLine(text: string): string {
  const line = text.split('\n')[0]!
  return line.length > 80 ? `${line.slice(0, 79).trimEnd()}…` : line
}

function optionsOf(program: Command, command: Command | undefined): Option[] {
  const help = visible(program)
  return command ? [...help.visibleOptions(command), ...help.visibleGlobalOptions(command)] : help.visibleOptions(program)
}

const findOption = (options: Option[], word: string) => options.find((o) => o.long === word || o.short === word)

/** The words before the current one: which command, which option wants a value now, which positionals are filled. */
function readLine(program: Command, words: string[]) {
  let command: Command | undefined
  const positionals: string[] = []
  const flags: { server?: string; key?: string } = {}
  let pending: Option | undefined
  let afterDashes = false
  for (const word of words) {
    const options = optionsOf(program, command)
    if (pending) {
      if (pending.long === '--server' || pending.long === '--key') flags[pending.long.slice(2) as 'server' | 'key'] = word
      pending = undefined
    } else if (!afterDashes && word === '--') afterDashes = true
    else if (!afterDashes && word.startsWith('-') && word.length > 1) {
      const option = findOption(options, word.split('=')[0]!)
      if (option && takesValue(option) && !word.includes('=')) pending = option
    } else if (!command)
      command = visible(program)
        .visibleCommands(program)
        .find((c) => c.name() === word || c.aliases().includes(word))
    else positionals.push(word)
  }
  return { command, positionals, flags, pending }
}

function argumentAt(command: Command, index: number): Argument | undefined {
  const args = command.registeredArguments
  return args[index] ?? (args.at(-1)?.variadic ? args.at(-1) : undefined)
}

/** What the current word (the last of `words`, maybe empty) can be. */
export function wanted(program: Command, words: string[]): Wanted {
  const current = words.at(-1) ?? ''
  const { command, positionals, flags, pending } = readLine(program, words.slice(0, -1))
  if (pending) return pending.argChoices ? { kind: 'words', candidates: pending.argChoices.map((value) => ({ value })) } : { kind: 'files' }
  if (current.startsWith('-')) {
    const candidates = optionsOf(program, command).flatMap((o) => (o.long ? [{ value: o.long, description: firstLine(o.description) }] : []))
    return { kind: 'words', candidates }
  }
  if (!command) {
    const commands = visible(program)
      .visibleCommands(program)
      .filter((c) => c.name() !== 'help')
    return { kind: 'words', candidates: commands.map((c) => ({ value: c.name(), description: firstLine(c.description()) })) }
  }
  const argument = argumentAt(command, positionals.length)
  if (argument?.argChoices) return { kind: 'words', candidates: argument.argChoices.map((value) => ({ value })) }
  if (argument?.name() === 'id') return { kind: 'ids', flags }
  return { kind: 'files' }
}

/** One line per candidate that starts with the current word, in the shell's format (fish and zsh show descriptions). */
export function formatCandidates(shell: Shell, current: string, candidates: Candidate[]): string {
  return candidates
    .filter((c) => c.value.startsWith(current))
    .map((c) => {
      if (shell === 'bash' || !c.description) return shell === 'zsh' ? c.value.replace(/:/g, '\\:') : c.value
      const description = c.description.replace(/\s+/g, ' ')
      return shell === 'fish' ? `${c.value}\t${description}` : `${c.value.replace(/:/g, '\\:')}:${description}`
    })
    .join('\n')
}
