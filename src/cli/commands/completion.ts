import { Argument, type Command } from 'commander'
import { lazyAction } from '../lazy.js'

/** folio completion <shell>: the script; folio __complete: what the script asks at each Tab (hidden). */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish (commands, options, folio ids)')
    .addArgument(new Argument('<shell>', 'your shell').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      `
Install (then open a new shell):
  bash  $ folio completion bash > ~/.local/share/bash-completion/completions/folio
        or add to ~/.bashrc:  eval "$(folio completion bash)"
  zsh   $ folio completion zsh > "\${fpath[1]}/_folio"
        or add to ~/.zshrc after compinit:  eval "$(folio completion zsh)"
  fish  $ folio completion fish > ~/.config/fish/completions/folio.fish

Tab completes commands, options and their choices; for a folio id, the ids (with titles) of the
server in use when it answers within a second; elsewhere, file names.`,
    )
    .action(lazyAction(async () => ({ default: (await import('../actions/completion.js')).printScript })))

  program
    .command('__complete', { hidden: true })
    .description('the candidates for the last word (used by the completion scripts)')
    .addArgument(new Argument('<shell>').choices(['bash', 'zsh', 'fish']))
    .argument('[words...]', 'the words after folio, the one being completed last')
    .helpOption(false)
    .action(lazyAction(async () => ({ default: (await import('../actions/completion.js')).complete })))
}
