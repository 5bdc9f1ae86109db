import { CliError, UsageError } from './errors.js'
import { isThisMachine, sameServer } from './origin.js'
import { type Profile, profilePath } from './profile.js'
import { normalizeServerUrl } from './server-url.js'

/** Where the server URL came from, for messages that must name it. */
export type ServerSource = 'flag' | 'environment' | 'profile' | 'link' | 'default'
/** Where the key came from: a refused key is reported with its source. */
export type KeySource = 'flag' | 'environment' | 'profile' | 'none'

export interface Target {
  /** Without trailing slashes. */
  server: string
  serverSource: ServerSource
  key?: string
  keySource: KeySource
  /** The key's source as people know it: --key, FOLIO_API_KEY, the login profile (path). */
  keyLabel?: string
  /** The profile's server when the profile holds a key that was not sent (another server). */
  profileServerNotUsed?: string
  /** The link file that named the server (serverSource 'link'). */
  linkFile?: string
  /** Where a key came from (--key, FOLIO_API_KEY) that was not sent: the server was named only by a folder's link. */
  keyWithheld?: string
}

/** The server a linked folder names (link.ts reads it): used when nothing else names one. */
export interface LinkedServer {
  server: string
  file: string
}

export interface TargetFlags {
  server?: string
  key?: string
}

/** Where the server came from, as people know it. */
export const serverSourceName = (source: ServerSource, linkFile?: string) =>
  source === 'flag'
    ? '--server'
    : source === 'environment'
      ? 'FOLIO_URL'
      : source === 'profile'
        ? `the server in the login profile (${profilePath()})`
        : source === 'link'
          ? `the linked folder's server${linkFile ? ` (${linkFile})` : ''}`
          : 'the default server (PORT)'

/** An http(s) URL (a scheme added to host[:port], see server-url.ts), or an error that names where the bad value came from. */
export function checkServerUrl(value: string, source: ServerSource, linkFile?: string): string {
  const name = serverSourceName(source, linkFile)
  const checked = normalizeServerUrl(value)
  if ('url' in checked) return checked.url
  const message =
    checked.problem === 'scheme'
      ? `${name} must be an http(s) URL like http://127.0.0.1:3000 (or just localhost:3000), got ${JSON.stringify(value)}.`
      : `${name} is not a valid URL: ${JSON.stringify(value)}.`
  // A flag or a variable was typed wrong: a usage error. A damaged profile or link is a failure to read it.
  throw source === 'flag' || source === 'environment' ? new UsageError(message) : new CliError(message)
}

/**
 * Which server and which key a command uses. The server: --server, FOLIO_URL, the login profile,
 * the linked folder's (`link`, when the command runs in one), else the local default. The key:
 * --key, FOLIO_API_KEY, else the profile's key, but only when the server is the profile's own
 * (sameServer): pointing --server elsewhere must not hand the saved secret to that other server.
 * `--key ''` sends no key at all. A link file may come with a cloned folder, so a server named
 * only by it gets a key from --key or FOLIO_API_KEY only when it is this machine; elsewhere the
 * user names the server (--server, FOLIO_URL, folio login) before a key goes there.
 */
export function resolveTarget(flags: TargetFlags, profile: Profile | undefined, env: NodeJS.ProcessEnv = process.env, link?: LinkedServer): Target {
  const [rawServer, serverSource]: [string, ServerSource] =
    flags.server !== undefined
      ? [flags.server, 'flag']
      : env.FOLIO_URL
        ? [env.FOLIO_URL, 'environment']
        : profile?.server
          ? [profile.server, 'profile']
          : link
            ? [link.server, 'link']
            : [`http://127.0.0.1:${env.PORT || 3000}`, 'default']
  const server = checkServerUrl(rawServer, serverSource, link?.file)
  const where = { server, serverSource, ...(serverSource === 'link' ? { linkFile: link!.file } : {}) }
  const profileKey = profile?.key && sameServer(server, profile.server) ? profile.key : undefined
  const envName = env.FOLIO_API_KEY ? 'FOLIO_API_KEY' : env.SERVICE_API_KEY ? 'SERVICE_API_KEY' : undefined
  const given: Pick<Target, 'key' | 'keySource' | 'keyLabel'> | undefined =
    flags.key !== undefined
      ? { key: flags.key || undefined, keySource: flags.key ? 'flag' : 'none', keyLabel: '--key' }
      : envName
        ? { key: env[envName], keySource: 'environment', keyLabel: envName }
        : undefined
  const withheld = given?.key && serverSource === 'link' && !isThisMachine(server) ? given.keyLabel : undefined
  const target: Target =
    given && !withheld
      ? { ...where, ...given }
      : profileKey
        ? { ...where, key: profileKey, keySource: 'profile', keyLabel: `the login profile (${profilePath()})` }
        : { ...where, keySource: 'none', ...(withheld ? { keyWithheld: withheld } : {}) }
  if (target.keySource === 'none' && profile?.key && !profileKey) target.profileServerNotUsed = profile.server
  return target
}
