import type { Command } from 'commander'
import { createClient } from '../../client/index.js'
import type { GlobalOptions } from '../context.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import { explain } from '../explain.js'
import { checkKey } from '../key-check.js'
import { printResult } from '../logger.js'
import { linkedServer } from '../link.js'
import { writeProfile } from '../profile.js'
import { resolveTarget, type Target } from '../target.js'

export default async (options: { verify: boolean }, command: Command) => {
  const globals = command.optsWithGlobals<GlobalOptions>()
  // Login saves what it is given: a key already in the profile is not carried to another server.
  // In a linked folder without --server or FOLIO_URL, it saves the link's server.
  const target = resolveTarget(globals, undefined, process.env, await linkedServer())
  if (target.keyWithheld) {
    throw new UsageError(
      `This folder's link (${target.linkFile}) names ${target.server}; a key from ${target.keyWithheld} is saved for a server elsewhere only when you name it: folio login --server ${target.server} --key <key>. Nothing was saved.`,
    )
  }
  const { server, key } = target
  if (options.verify) await verify(target)
  const path = await writeProfile({ server, key })
  printResult(globals.json ? JSON.stringify({ server, keySaved: Boolean(key), path }) : `Saved ${server}${key ? ' and its key' : ''} to ${path}`)
}

/** A key the server refuses is not saved; without a key: is the server there? */
async function verify(target: Target): Promise<void> {
  try {
    const verdict = await checkKey(createClient({ server: target.server, key: target.key }), target.key)
    if (verdict.state === 'refused') {
      throw new CliError(
        `${target.server} refused this key: ${verdict.why}. Nothing was saved; check the key (folio keys on the server's machine prints it), or save anyway with --no-verify.`,
        EXIT.failed,
        'Unauthorized',
      )
    }
    if (verdict.state === 'needed') {
      throw new CliError(
        `${target.server} needs an API key: folio login --server ${target.server} --key <key> (folio keys on the server's machine prints it). Nothing was saved.`,
        EXIT.failed,
        'Unauthorized',
      )
    }
  } catch (error) {
    explain(error, target)
  }
}
