import type { Command } from 'commander'
import { listFolios } from '../../api/files.js'
import { ago, duration, table } from '../../terminal/format.js'
import { withContext } from '../context.js'

export default (_options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const folios = await ctx.client.call(listFolios)
    ctx.print(folios, () =>
      folios.length === 0
        ? 'No folios yet. Create one: folio create "My deck" --html deck.html'
        : table(
            ['ID', 'TITLE', 'STATUS', 'VERSION', 'VIEWS', 'AVG TIME', 'UPDATED'],
            folios.map((f) => [
              f.id,
              f.title,
              f.isPrivate ? `${f.status} (private)` : f.status,
              f.latestVersionId,
              String(f.analytics.views),
              duration(f.analytics.avgTimeSeconds),
              ago(f.updatedAt),
            ]),
          ),
    )
  })
