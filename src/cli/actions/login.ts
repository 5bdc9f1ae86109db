import type { Command } from 'commander'
import { ERRORS } from '../../api/errors.js'
import { listFolios } from '../../api/files.js'
import { getKey } from '../../api/keys.js'
import { ApiClientError, createClient } from '../../client/index.js'
import type { GlobalOptions } from '../context.js'
import { CliError } from '../errors.js'
import { explain } from '../explain.js'
import { printResult } from '../logger.js'
import { writeProfile } from '../profile.js'
import { resolveTarget, type Target } from '../target.js'

export default async (options: { verify: boolean }, command: Command) => {
  const globals = command.optsWithGlobals<GlobalOptions>()
  // Login saves what it is given: a key already in the profile is not carried to another server.
  const target = resolveTarget(globals, undefined)
  const { server, key } = target
  if (options.verify) await verify(target)
  const path = await writeProfile({ server, key })
  printResult(globals.json ? JSON.stringify({ server, keySaved: Boolean(key), path }) : `Saved ${server}${key ? ' and its key' : ''} to ${path}`)
}

/**
 * A key is checked where only the right key gets in: GET /api/keys answers the server's current
 * key to its holder. A server that is open without a key (OSS) cannot tell a wrong key from a
 * right one anywhere else, so the answer is compared too. Without a key: is the server there?
 */
async function verify(target: Target): Promise<void> {
  const client = createClient({ server: target.server, key: target.key })
  const refused = (why: string) => new CliError(`${target.server} refused this key: ${why}. Nothing was saved; check the key (folio keys on the server's machine prints it), or save anyway with --no-verify.`)
  try {
    if (!target.key) {
      await client.call(listFolios)
      return
    }
    const { apiKey } = await client.call(getKey)
    if (apiKey !== target.key) throw refused("it is not the server's current key")
  } catch (error) {
    if (error instanceof ApiClientError && error.status === 401) throw refused("it is not the server's current key (rotated or revoked?)")
    if (error instanceof ApiClientError && error.status === ERRORS.noApiKey.status && error.error === ERRORS.noApiKey.error) throw refused('the server has no API key at all (make one there with folio keys rotate, or log in without --key)')
    // Forbidden: the key got in, only its role may not read keys. That is a working key.
    if (error instanceof ApiClientError && error.status === 403) return
    explain(error, target)
  }
}
