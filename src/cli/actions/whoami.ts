import type { Command } from 'commander'
import { withContext } from '../context.js'
import { checkKey, type KeyVerdict, serverMode } from '../key-check.js'
import { serverSourceName } from '../target.js'

const ACCESS: Record<KeyVerdict['state'], string> = {
  accepted: 'accepted',
  refused: 'refused',
  open: 'no key needed from this machine (OSS)',
  needed: 'none sent, and the server needs one',
}

/**
 * folio whoami: the server in use and where it came from, the key and where it came from, what the
 * server makes of it, and the server's mode. A Cloud server does not tell its workspace yet: said.
 */
export default (_options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const { target } = ctx
    const [verdict, mode] = await Promise.all([checkKey(ctx.client, target.key), serverMode(ctx.client)])
    const result = {
      server: target.server,
      serverSource: target.serverSource,
      keySource: target.keySource,
      key: verdict.state,
      ...(verdict.state === 'refused' ? { keyRefusedBecause: verdict.why } : {}),
      mode,
      workspace: null,
    }
    const keyLine =
      target.keySource === 'none'
        ? `none${target.profileServerNotUsed ? ` (the login profile's key is for ${target.profileServerNotUsed} only)` : ''}`
        : `from ${target.keyLabel}`
    ctx.print(result, () =>
      [
        `Server:    ${target.server} (${serverSourceName(target.serverSource)})`,
        `Key:       ${keyLine}`,
        `Access:    ${verdict.state === 'refused' ? `refused: ${verdict.why}` : ACCESS[verdict.state]}`,
        `Mode:      ${mode === 'oss' ? 'OSS (self-hosted)' : 'Cloud'}`,
        mode === 'cloud' ? 'Workspace: not told by this server (it has no endpoint for it yet)' : '',
      ]
        .filter(Boolean)
        .join('\n'),
    )
  })
