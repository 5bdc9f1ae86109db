/**
 * The bench's stand-in servers all start the same way: listen on a free loopback port, print one
 * line {url, pid} for lib/processes.ts to read, and stop cleanly on SIGTERM/SIGINT.
 * @param {import('node:http').Server} server
 */
export function listenAndReport(server) {
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address()
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid })}\n`)
  })
  const stop = () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}
