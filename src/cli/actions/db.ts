import type { Command } from 'commander'
import {
  type CopyProgress,
  databaseStatus,
  DatabaseUnavailableError,
  describeDatabase,
  exportToDataDir,
  importDataDir,
  migrateDatabase,
  type MigrationStatus,
} from '../../server/admin/database-admin.js'
import type { GlobalOptions } from '../context.js'
import { CliError, UsageError } from '../errors.js'
import { logger, printResult } from '../logger.js'

export interface DbOptions {
  database?: string
}

const listed = (steps: Array<{ id: number; name: string }>) => steps.map((s) => `  ${s.id}  ${s.name}`).join('\n')

function describeStatus(where: string, status: MigrationStatus): string {
  const lines = [`${where}: ${status.current ? 'current' : 'not current'}`]
  if (status.applied.length) lines.push(`Applied:\n${listed(status.applied)}`)
  if (status.pending.length) lines.push(`Pending (folio db migrate applies them):\n${listed(status.pending)}`)
  if (status.unknown.length) lines.push(`Applied by a newer folio: migration ${status.unknown.join(', ')}. Upgrade folio.`)
  if (status.changed.length) lines.push(`Changed since applied: migration ${status.changed.join(', ')}.`)
  return lines.join('\n')
}

export default async (action: 'migrate' | 'status' | 'import' | 'export', dir: string | undefined, options: DbOptions, command: Command) => {
  const json = Boolean(command.optsWithGlobals<GlobalOptions>().json)
  // || : an empty FOLIO_DATABASE_URL is unset, as for every folio variable.
  const url = options.database || process.env.FOLIO_DATABASE_URL
  if (!url) throw new UsageError('Which database? Give --database postgres://user:password@host:5432/database, or set FOLIO_DATABASE_URL.')
  const where = describeDatabase(url)
  if ((action === 'import' || action === 'export') && !dir) {
    throw new UsageError(action === 'import' ? 'Which data dir? folio db import ./.folio' : 'Where to? folio db export ./folio-export (a new or empty folder)')
  }
  try {
    if (action === 'import' || action === 'export') {
      const progress = (p: CopyProgress) => {
        if (!json)
          logger().info(
            `${p.phase === 'copy' ? 'Copied' : 'Verified'} ${p.done.toLocaleString('en-US')} of ${p.total.toLocaleString('en-US')} items (${(p.bytes / 1024 / 1024).toFixed(1)} MB)`,
          )
      }
      if (!json) logger().info(action === 'import' ? `Importing ${dir} into ${where}…` : `Exporting ${where} to ${dir}…`)
      const report = action === 'import' ? await importDataDir(url, dir!, progress) : await exportToDataDir(url, dir!, progress)
      printResult(
        json
          ? JSON.stringify(report)
          : `${action === 'import' ? 'Imported' : 'Exported'} ${report.keys.toLocaleString('en-US')} items (${(report.bytes / 1024 / 1024).toFixed(1)} MB; ${report.copied.toLocaleString('en-US')} written this run), each read back and verified.\n${
              action === 'import' ? `Serve it: folio serve --database <url>` : `Serve it: folio serve --data ${dir}`
            }`,
      )
      return
    }
    if (action === 'status') {
      const status = await databaseStatus(url)
      printResult(json ? JSON.stringify(status) : describeStatus(where, status))
      return
    }
    if (!json) logger().info(`Migrating ${where}…`)
    const { applied, status } = await migrateDatabase(url)
    printResult(
      json
        ? JSON.stringify({ applied, current: status.current })
        : applied.length
          ? `Applied:\n${listed(applied)}\n${where} is current.`
          : `Nothing to apply: ${where} is current.`,
    )
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) throw new CliError(`Cannot use the database: ${error.message}`)
    throw new CliError((error as Error).message)
  }
}
