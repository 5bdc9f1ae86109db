import type { Command } from 'commander'
import type { GlobalOptions } from '../context.js'
import { printResult } from '../logger.js'
import { sameServer } from '../origin.js'
import { profilePath, readProfile, writeProfile } from '../profile.js'
import { resolveTarget } from '../target.js'

/**
 * folio logout: the login profile forgets its key for the server in use (--server, FOLIO_URL,
 * else the profile's own). The server stays the default of later commands; they send no key.
 */
export default async (_options: unknown, command: Command) => {
  const globals = command.optsWithGlobals<GlobalOptions>()
  const profile = await readProfile()
  const { server } = resolveTarget({ server: globals.server }, profile)
  const path = profilePath()
  const holdsKey = Boolean(profile?.key && sameServer(profile.server, server))
  if (holdsKey) await writeProfile({ server: profile!.server })
  const text = holdsKey
    ? `Forgot the key saved for ${server} (${path}); later commands send none unless given one.`
    : profile?.key
      ? `No key saved for ${server}: the login profile (${path}) holds one for ${profile.server} only (folio logout --server ${profile.server}).`
      : `No key saved for ${server}: nothing to forget.`
  printResult(globals.json ? JSON.stringify({ server, forgotten: holdsKey, path }) : text)
}
