import { createInterface } from 'node:readline/promises'
import { UsageError } from './errors.js'

/**
 * Asks a yes/no question before something that cannot be undone; the answer must be y or yes.
 * Without a terminal there is nobody to ask: `refusal` (which names the flag that confirms) is
 * the error, and nothing is done.
 */
export async function confirm(question: string, refusal: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) throw new UsageError(refusal)
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  const answer = await prompt.question(`${question} [y/N] `).finally(() => prompt.close())
  return /^y(es)?$/i.test(answer.trim())
}
