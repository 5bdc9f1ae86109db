import type { Command } from 'commander'
import { listFolios } from '../../api/files.js'
import { createClient } from '../../client/index.js'
import { explain, type GlobalOptions } from '../context.js'
import { CliError } from '../errors.js'
import { writeProfile } from '../profile.js'

export default async (options: { verify: boolean }, command: Command) => {
  const globals = command.optsWithGlobals<GlobalOptions>()
  const server = (globals.server ?? (process.env.FOLIO_URL || 'http://127.0.0.1:3000')).replace(/\/+$/, '')
  const key = globals.key ?? (process.env.FOLIO_API_KEY || undefined)
  if (!/^https?:\/\//.test(server)) throw new CliError(`--server must be an http(s) URL, got ${JSON.stringify(server)}`)
  if (options.verify) {
    try {
      await createClient({ server, key }).call(listFolios)
    } catch (error) {
      explain(error)
    }
  }
  const path = await writeProfile({ server, key })
  process.stdout.write(globals.json ? `${JSON.stringify({ server, keySaved: Boolean(key), path })}\n` : `Saved ${server}${key ? ' and its key' : ''} to ${path}\n`)
}
