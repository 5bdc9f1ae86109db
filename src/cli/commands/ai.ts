import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'

export function registerAi(program: Command): void {
  program
    .command('ai')
    .description('ask the server’s AI model to change a folio: streams its explanation, shows the diff, asks to commit')
    .argument('<id>', 'the folio')
    .argument('<prompt...>', 'what to change')
    .option('-y, --yes', 'commit the proposal without asking')
    .option('--model <model>', 'the model (OSS), e.g. gpt-4.1-mini, anthropic:claude-sonnet-4-5, ollama:llama3.2')
    .option('--api-key-env <NAME>', 'the provider key (OSS) is in this environment variable: sent for this request only, never on the command line')
    .option('--file <path>', 'work on this file only (the current screen), e.g. slides.html')
    .addHelpText(
      'after',
      `
Examples:
  $ folio ai k3x9q2 "make the title bigger"
  $ folio ai k3x9q2 "use the brand colours" --yes
  $ folio ai k3x9q2 "shorten the intro" --file intro.html --json
  $ folio ai k3x9q2 "add a chart" --model openai:gpt-4.1-mini --api-key-env MY_OPENAI_KEY
The server's model is configured where folio serve runs: FOLIO_AI_PROVIDER (openai, anthropic,
ollama), FOLIO_AI_MODEL, and OPENAI_API_KEY / OPENAI_BASE_URL, ANTHROPIC_API_KEY or OLLAMA_HOST.
A self-hosted server without one takes yours per request: --model and --api-key-env (the key is
read from that variable, so it stays out of shell history and ps; the server never stores it).
With --json the proposal is printed and committed only with --yes.`,
    )
    .action(lazyAction(() => import('../actions/ai.js')))
}
