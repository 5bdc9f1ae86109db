import { spawn } from 'node:child_process'

/**
 * Opens a URL in the user's browser: $BROWSER when set (as many tools honour), else the
 * platform's opener. Resolves false when nothing could be started (the caller prints the URL).
 */
export function openUrl(url: string): Promise<boolean> {
  const [command, args] = process.env.BROWSER
    ? [process.env.BROWSER, [url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]]
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true })
    child.once('error', () => resolve(false))
    child.once('spawn', () => {
      child.unref()
      resolve(true)
    })
  })
}
