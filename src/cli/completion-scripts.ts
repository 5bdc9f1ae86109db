import type { Shell } from './completion.js'

/**
 * The scripts `folio completion <shell>` prints. Each hands the words typed so far to
 * `folio __complete <shell> -- …` (completion.ts decides from the commander tree) and falls back
 * to file names when nothing comes back (sync's folder, upload's files, --html, --dir).
 */
export const COMPLETION_SCRIPTS: Record<Shell, string> = {
  bash: `# folio completion for bash. Install it with one of:
#   folio completion bash > ~/.local/share/bash-completion/completions/folio
#   echo 'eval "$(folio completion bash)"' >> ~/.bashrc
_folio_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(folio __complete bash -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -o nosort -F _folio_complete folio 2>/dev/null || complete -o default -F _folio_complete folio
`,
  zsh: `#compdef folio
# folio completion for zsh. Install it with one of:
#   folio completion zsh > "\${fpath[1]}/_folio"       (then start a new shell)
#   echo 'eval "$(folio completion zsh)"' >> ~/.zshrc  (after compinit)
_folio() {
  local -a candidates
  candidates=("\${(@f)$(folio __complete zsh -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ -n "\${candidates[1]}" ]]; then
    _describe -t folio 'folio' candidates
  else
    _files
  fi
}
if [[ "\${funcstack[1]}" == "_folio" ]]; then
  _folio "$@"
else
  compdef _folio folio
fi
`,
  fish: `# folio completion for fish. Install it with:
#   folio completion fish > ~/.config/fish/completions/folio.fish
function __folio_complete
    set -l typed (commandline -opc) (commandline -ct)
    set -l found (folio __complete fish -- $typed[2..-1] 2>/dev/null)
    if test (count $found) -gt 0
        printf '%s\\n' $found
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c folio -f -a '(__folio_complete)'
`,
}
