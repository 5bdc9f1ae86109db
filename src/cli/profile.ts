import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { sameServer } from './origin.js'

/** What `folio login` remembers: which server, and its key. */
export interface Profile {
  server: string
  key?: string
}

/** $FOLIO_CONFIG_DIR, else $XDG_CONFIG_HOME/folio, else ~/.config/folio (APPDATA on Windows). */
export function configDir(): string {
  if (process.env.FOLIO_CONFIG_DIR) return process.env.FOLIO_CONFIG_DIR
  if (process.platform === 'win32' && process.env.APPDATA) return join(process.env.APPDATA, 'folio')
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'folio')
}

export const profilePath = () => join(configDir(), 'profile.json')

export async function readProfile(): Promise<Profile | undefined> {
  try {
    const parsed = JSON.parse(await readFile(profilePath(), 'utf8')) as Partial<Profile>
    return typeof parsed.server === 'string' ? { server: parsed.server, key: typeof parsed.key === 'string' ? parsed.key : undefined } : undefined
  } catch {
    return undefined
  }
}

/** Written so that only the user can read it (the key is a secret): 0700 folder, 0600 file. */
export async function writeProfile(profile: Profile): Promise<string> {
  const path = profilePath()
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const tmp = `${path}.${process.pid}.tmp`
  await writeFile(tmp, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 })
  await chmod(tmp, 0o600)
  await rename(tmp, path)
  return path
}

/**
 * After `folio keys rotate|revoke`, a profile that holds a key for that server would hold a dead
 * one: it gets the new key (or none). Profiles of other servers, and profiles without a key, are
 * left alone. Returns the profile's path when it changed.
 */
export async function replaceProfileKey(server: string, key: string | undefined): Promise<string | undefined> {
  const profile = await readProfile()
  if (!profile?.key || !sameServer(profile.server, server) || profile.key === key) return undefined
  return writeProfile({ server: profile.server, ...(key ? { key } : {}) })
}
