import { resolve } from 'node:path'

export interface NextStepsInput {
  /** The server's own URL (the banner's Local address). */
  url: string
  mode: 'oss' | 'cloud'
  /** The data folder, absolute. */
  dataDir: string
  /** The CLI's commands reach this server without --server (127.0.0.1 on $PORT, else 3000). */
  onDefaultServer: boolean
  /** How the user runs folio: `folio`, or `npx folio-cli` when serve was started with npx. */
  folio: string
}

export interface NextSteps {
  /** Said before the commands when they need explaining; without it the one command follows "Next:". */
  intro?: string
  commands: string[]
}

/**
 * What to do once `folio serve` listens, as commands that work when pasted. OSS: publish this
 * folder. Cloud: nothing works without a workspace key, which only the operator can make, so
 * the steps are: make the first workspace (folio admin, on this server's data folder), sign in
 * with the key it prints, then publish.
 */
export function serveNextSteps(input: NextStepsInput): NextSteps {
  const { folio, url } = input
  const server = input.onDefaultServer ? '' : ` --server ${url}`
  if (input.mode === 'oss') return { commands: [`${folio} create --dir . --publish${server}`] }
  // folio admin reads ./.folio (or $FOLIO_DATA) of the folder it runs in: any other data folder
  // is named, so the command works as printed (FOLIO_DATA may be unset in another terminal).
  const data = input.dataDir === resolve('.folio') ? '' : ` --data ${shellWord(input.dataDir)}`
  return {
    intro: 'make the first workspace (it prints the workspace’s API key, once), then sign in with that key:',
    commands: [
      `${folio} admin workspace create --name "My team"${data}`,
      `${folio} login --server ${url} --key <the key it printed>`,
      `${folio} create --dir . --publish`,
    ],
  }
}

/** A path as one shell word: as it is when nothing in it is special to a shell, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./~-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
}
