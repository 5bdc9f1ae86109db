import type { Command } from 'commander'
import { getWorkspace } from '../../api/workspace.js'
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
 * server makes of it, the server's mode and, in Cloud, the workspace the key belongs to.
 */
export default (_options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const { target } = ctx
    const [verdict, mode] = await Promise.all([checkKey(ctx.client, target.key), serverMode(ctx.client)])
    const workspace =
      mode === 'cloud' && verdict.state === 'accepted' ? await ctx.client.call(getWorkspace).then(({ id, name, plan }) => ({ id, name, plan })) : null
    const result = {
      server: target.server,
      serverSource: target.serverSource,
      ...(target.linkFile ? { linkFile: target.linkFile } : {}),
      keySource: target.keySource,
      ...(target.keyWithheld ? { keyWithheld: target.keyWithheld } : {}),
      key: verdict.state,
      ...(verdict.state === 'refused' ? { keyRefusedBecause: verdict.why } : {}),
      mode,
      workspace,
    }
    const keyLine =
      target.keySource !== 'none'
        ? `from ${target.keyLabel}`
        : target.keyWithheld
          ? `none (the key from ${target.keyWithheld} is not sent to a server only the folder's link names: pass --server ${target.server})`
          : `none${target.profileServerNotUsed ? ` (the login profile's key is for ${target.profileServerNotUsed} only)` : ''}`
    ctx.print(result, () =>
      [
        `Server:    ${target.server} (${serverSourceName(target.serverSource, target.linkFile)})`,
        `Key:       ${keyLine}`,
        `Access:    ${verdict.state === 'refused' ? `refused: ${verdict.why}` : ACCESS[verdict.state]}`,
        `Mode:      ${mode === 'oss' ? 'OSS (self-hosted)' : 'Cloud'}`,
        mode === 'cloud' ? `Workspace: ${workspace ? `${workspace.name} (${workspace.id}), plan ${workspace.plan}` : 'known once a key is accepted'}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    )
  })
