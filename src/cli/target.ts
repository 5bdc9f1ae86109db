import { CliError, UsageError } from './errors.js'
import { sameOrigin } from './origin.js'
import { type Profile, profilePath } from './profile.js'
import { normalizeServerUrl } from './server-url.js'

/** Where the server URL came from, for messages that must name it. */
export type ServerSource = 'flag' | 'environment' | 'profile' | 'default'
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
}

export interface TargetFlags {
  server?: string
  key?: string
}

/** Where the server came from, as people know it. */
export const serverSourceName = (source: ServerSource) =>
  source === 'flag' ? '--server' : source === 'environment' ? 'FOLIO_URL' : source === 'profile' ? `the server in the login profile (${profilePath()})` : 'the default server (PORT)'

/** An http(s) URL (a scheme added to host[:port], see server-url.ts), or an error that names where the bad value came from. */
export function checkServerUrl(value: string, source: ServerSource): string {
  const name = serverSourceName(source)
  const checked = normalizeServerUrl(value)
  if ('url' in checked) return checked.url
  const message =
    checked.problem === 'scheme'
      ? `${name} must be an http(s) URL like http://127.0.0.1:3000 (or just localhost:3000), got ${JSON.stringify(value)}.`
      : `${name} is not a valid URL: ${JSON.stringify(value)}.`
  // A flag or a variable was typed wrong: a usage error. A damaged profile is a failure to read it.
  throw source === 'flag' || source === 'environment' ? new UsageError(message) : new CliError(message)
}

/**
 * Which server and which key a command uses. The server: --server, FOLIO_URL, the login profile,
 * else the local default. The key: --key, FOLIO_API_KEY, else the profile's key, but only when
 * the server is the profile's own (same origin): pointing --server elsewhere must not hand the
 * saved secret to that other server. `--key ''` sends no key at all.
 */
export function resolveTarget(flags: TargetFlags, profile: Profile | undefined, env: NodeJS.ProcessEnv = process.env): Target {
  const [rawServer, serverSource]: [string, ServerSource] = flags.server !== undefined
    ? [flags.server, 'flag']
    : env.FOLIO_URL
      ? [env.FOLIO_URL, 'environment']
      : profile?.server
        ? [profile.server, 'profile']
        : [`http://127.0.0.1:${env.PORT || 3000}`, 'default']
  const server = checkServerUrl(rawServer, serverSource)
  const profileKey = profile?.key && sameOrigin(server, profile.server) ? profile.key : undefined
  const envName = env.FOLIO_API_KEY ? 'FOLIO_API_KEY' : env.SERVICE_API_KEY ? 'SERVICE_API_KEY' : undefined
  const target: Target =
    flags.key !== undefined
      ? { server, serverSource, key: flags.key || undefined, keySource: flags.key ? 'flag' : 'none', keyLabel: '--key' }
      : envName
        ? { server, serverSource, key: env[envName], keySource: 'environment', keyLabel: envName }
        : profileKey
          ? { server, serverSource, key: profileKey, keySource: 'profile', keyLabel: `the login profile (${profilePath()})` }
          : { server, serverSource, keySource: 'none' }
  if (target.keySource === 'none' && profile?.key && !profileKey) target.profileServerNotUsed = profile.server
  return target
}
