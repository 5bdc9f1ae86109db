import { afterEach, describe, expect, it } from 'vitest'
import { processRunning, startTerminal, type Terminal, terminalBackend, waitForExit, waitForScreen } from './helpers/terminal.js'

/**
 * The terminal helper does what the real-terminal tests rely on, with whichever backend this
 * machine uses: the program sees the size it was given and each resize, bytes sent together
 * arrive in one read, and its exit code comes back.
 */
const PROGRAM = `
const say = (line) => process.stdout.write(line + '\\r\\n')
const red = (line) => process.stdout.write('\\x1b[31m' + line + '\\x1b[0m\\r\\n')
const size = () => process.stdout.columns + 'x' + process.stdout.rows
process.stdin.setRawMode(true)
say('size ' + size())
process.stdout.on('resize', () => say('resized ' + size()))
process.stdin.on('data', (chunk) => {
  if (chunk.toString() === 'x') process.exit(7)
  if (chunk.toString() === 'r') return red('in red')
  say('read ' + chunk.length + ' bytes: ' + JSON.stringify(chunk.toString()))
})
`

describe(`the test terminal (${await terminalBackend()})`, () => {
  let terminal: Terminal | undefined
  afterEach(async () => {
    await terminal?.stop()
    terminal = undefined
  })

  it('gives the program its size, resizes it, delivers bytes sent together in one read, and reports its exit code', async () => {
    terminal = await startTerminal([process.execPath, '-e', PROGRAM], { cols: 50, rows: 10 })
    await waitForScreen(terminal, /^size 50x10$/m, 'the starting size')
    expect(await terminal.styled()).toBe(false)
    await terminal.send('r')
    await waitForScreen(terminal, /^in red$/m, 'a line in red')
    expect(await terminal.styled()).toBe(true)

    await terminal.resize(90, 12)
    await waitForScreen(terminal, /^resized 90x12$/m, 'the new size')
    // The screen is the new size too: a line longer than the old width stays on one row.
    await terminal.send(`${'w'.repeat(70)}`)
    await waitForScreen(terminal, /^read 70 bytes: "w{70}"$/m, 'a 90-column row')

    // Three Up arrows at once, as a held-down key sends them.
    await terminal.send('\x1b[A\x1b[A\x1b[A')
    await waitForScreen(terminal, /^read 9 bytes: "(\\u001b\[A){3}"$/m, 'one read of three arrows')

    await terminal.send('x')
    expect(await waitForExit(terminal)).toBe(7)
  })

  it('ends a program that still runs when stopped, and reports how it ended', async () => {
    terminal = await startTerminal([process.execPath, '-e', 'setInterval(() => {}, 1000); console.log("running as " + process.pid)'], { cols: 40, rows: 5 })
    await waitForScreen(terminal, new RegExp(`^running as ${terminal.pid}$`, 'm'), 'the program to start')
    await terminal.stop()
    expect(processRunning(terminal.pid)).toBe(false)
    expect(await terminal.exitCode()).toBe(143) // SIGTERM
  })
})
