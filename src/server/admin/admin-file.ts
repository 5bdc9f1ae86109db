import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** <data>/admin.json: where a running Cloud server's operator API is, and its token (0600). */
export interface AdminFile {
  url: string
  token: string
  pid: number
}

export const ADMIN_FILE = 'admin.json'

export async function writeAdminFile(dataDir: string, content: AdminFile): Promise<void> {
  const path = join(dataDir, ADMIN_FILE)
  // Removed first: writeFile's mode applies only to a file it creates.
  await rm(path, { force: true })
  await writeFile(path, JSON.stringify(content), { mode: 0o600, flag: 'wx' })
}

export async function readAdminFile(dataDir: string): Promise<AdminFile | undefined> {
  try {
    const parsed = JSON.parse(await readFile(join(dataDir, ADMIN_FILE), 'utf8')) as Partial<AdminFile>
    return typeof parsed.url === 'string' && typeof parsed.token === 'string' ? (parsed as AdminFile) : undefined
  } catch {
    return undefined
  }
}

/** Removes the file if it is still this server's (a later server on the same dir wrote its own). */
export async function removeAdminFile(dataDir: string, token: string): Promise<void> {
  if ((await readAdminFile(dataDir))?.token === token) await rm(join(dataDir, ADMIN_FILE), { force: true })
}
