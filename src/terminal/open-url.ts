import { spawn } from 'node:child_process'

/**
 * An opener that is still running after this long is a browser that stays in the foreground
 * ($BROWSER=firefox with none open yet): it did open the page, and we stop waiting for it.
 */
const STILL_RUNNING_MEANS_OPENED_MS = 3000

/**
 * Opens a URL in the user's browser: $BROWSER when set (as many tools honour), else the
 * platform's opener. Resolves true only when the page was opened: the opener started and exited
 * with 0 (xdg-open exits non-zero when it finds no browser), or is still running as the browser.
 * The caller prints the URL either way and must not claim it opened on false.
 */
export function openUrl(url: string, stillRunningMs = STILL_RUNNING_MEANS_OPENED_MS): Promise<boolean> {
  const [command, args] = process.env.BROWSER
    ? [process.env.BROWSER, [url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]]
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true })
    let timer: NodeJS.Timeout | undefined
    let settled = false
    const settle = (opened: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(opened)
    }
    child.once('error', () => settle(false))
    child.once('exit', (code) => settle(code === 0))
    child.once('spawn', () => {
      timer = setTimeout(() => {
        child.unref()
        settle(true)
      }, stillRunningMs)
    })
  })
}
