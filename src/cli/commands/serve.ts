import { resolve } from 'node:path'
import { type Command, InvalidArgumentError, Option } from 'commander'
import { CliError } from '../errors.js'

function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0 picks a free one)')
  return port
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('start the folio server on a flat-file store (no database to install)')
    .option('-p, --port <port>', 'port to listen on; 0 picks a free one (default: $PORT or 3000)', parsePort)
    .option('-H, --host <host>', 'interface or host name to listen on; 0.0.0.0 to reach it from other machines', '127.0.0.1')
    .option('-d, --data <dir>', 'data folder (default: $FOLIO_DATA or ./.folio)')
    .addOption(new Option('-m, --mode <mode>', 'oss: open local API; cloud: workspaces, keys and quotas').choices(['oss', 'cloud']).default('oss'))
    .option('--tunnel', 'also open a public tunnel at start (folio tunnel start|stop later)')
    .option('--tunnel-host <url>', 'your own localtunnel server (default: $FOLIO_TUNNEL_HOST, else localtunnel.me)')
    .addHelpText(
      'after',
      `
Examples:
  $ folio serve                          http://127.0.0.1:3000, data in ./.folio
  $ folio serve --port 0 --json          a free port; prints {"url": …} for scripts
  $ PORT=8080 FOLIO_DATA=~/folios folio serve
  $ curl -X POST localhost:3000/api/files -H 'content-type: application/json' -d '{"title":"Hello","initialHtml":"<h1>Hi</h1>"}'

Who may call it: the API is open to this machine's programs and the server's own pages. Other
sites' pages, requests through the tunnel and host names it does not know need the key (folio keys
show). IP addresses and localhost always count as its own; add names with --host <name> or
FOLIO_ALLOWED_HOSTS=folio.lan,mybox (a guard against DNS rebinding).

Ctrl+C (SIGINT) or SIGTERM stops it after in-flight writes finish.`,
    )
    .action(async (options: { port?: number; host: string; data?: string; mode: 'oss' | 'cloud'; tunnel?: boolean; tunnelHost?: string }, command: Command) => {
      // --json is global: with it, one line {url, publicUrl, dataDir, mode, pid} when ready.
      const json = Boolean(command.optsWithGlobals<{ json?: boolean }>().json)
      const port = options.port ?? (process.env.PORT ? parsePort(process.env.PORT) : 3000)
      const dataDir = resolve(options.data ?? process.env.FOLIO_DATA ?? '.folio')
      const { startServer } = await import('../../server/serve.js')
      let server
      try {
        server = await startServer({
          port,
          host: options.host,
          dataDir,
          mode: options.mode,
          config: options.tunnelHost ? { tunnel: { host: options.tunnelHost, startTimeoutMs: 15_000 } } : {},
        })
      } catch (error) {
        throw new CliError((error as Error).message)
      }
      let publicUrl: string | undefined
      if (options.tunnel) {
        try {
          publicUrl = (await server.tunnel.start()).url
        } catch (error) {
          process.stderr.write(`folio: the tunnel did not start (${(error as Error).message}); the server runs locally. Retry with folio tunnel start.\n`)
        }
      }
      if (json) {
        process.stdout.write(`${JSON.stringify({ url: server.url, publicUrl, dataDir, mode: options.mode, pid: process.pid })}\n`)
      } else {
        process.stdout.write(
          `folio is serving ${server.url}\n  data  ${dataDir}\n  mode  ${options.mode}\n  API   ${server.url}/api/openapi\n${publicUrl ? `  public ${publicUrl}\n` : ''}Press Ctrl+C to stop.\n`,
        )
      }
      await new Promise<void>((done) => {
        const stop = (signal: string) => {
          process.off('SIGINT', stop)
          process.off('SIGTERM', stop)
          if (!json) process.stdout.write(`\n${signal}: finishing in-flight requests…\n`)
          server.close().then(done, (error) => {
            process.stderr.write(`folio: error while stopping: ${(error as Error).message}\n`)
            done()
          })
        }
        process.on('SIGINT', stop)
        process.on('SIGTERM', stop)
      })
      if (!json) process.stdout.write('Stopped.\n')
    })
}
