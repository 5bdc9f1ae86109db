/*
 * A database URL in messages (banner, folio db): host, port and database only, never the
 * password. No pg import here: the serve banner uses it without loading the driver.
 */

/** host:port/database of a postgres:// URL, for messages. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`
  } catch {
    return 'the database (its URL cannot be parsed)'
  }
}

/** In an instance's own folder (serve --database --data <dir>): names the database it serves, so folio admin asks the running instance instead of opening a flat store there. */
export const DATABASE_INSTANCE_FILE = 'database-instance.txt'
