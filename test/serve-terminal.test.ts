import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { listFolios } from '../src/api/files.js'
import { getOpenApi } from '../src/api/design-systems.js'
import { qrLines } from '../src/tui/qr.js'
import { BIN, lanAddresses } from './helpers/cli-process.js'
import { testApi } from './helpers/api.js'
import { startTerminal, type Terminal, terminalBackend, waitForExit, waitForScreen } from './helpers/terminal.js'

/**
 * `folio serve` for a person at a terminal: the built CLI in a real terminal (tmux, else a
 * `script` pty), read back as the screen. There, and only there, the banner carries a QR code of
 * the network address and colours.
 */
describe(`folio serve in a real terminal (${await terminalBackend()})`, () => {
  let scratch: string
  let terminal: Terminal | undefined

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'folio-serve-terminal-'))
  })
  afterEach(async () => {
    await terminal?.stop()
    terminal = undefined
  })
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true })
  })

  it('shows a QR code of the network address, in colour, and stops on Ctrl+C', async () => {
    terminal = await startTerminal([process.execPath, BIN, 'serve', '--port', '0', '--host', '0.0.0.0', '--data', join(scratch, 'data')], {
      cols: 120,
      rows: 60,
      env: { FOLIO_CONFIG_DIR: scratch, FOLIO_API_KEY: undefined, SERVICE_API_KEY: undefined, FOLIO_LOG_LEVEL: undefined, CI: undefined },
    })

    const screen = await waitForScreen(terminal, (s) => s.includes('Press Ctrl+C to stop.'), 'the banner')
    const port = /folio is serving http:\/\/localhost:(\d+)/.exec(screen)![1]
    const networkUrl = `http://${lanAddresses()[0]}:${port}`
    expect(screen).toContain(`➜ Network:  ${networkUrl}`)
    expect(screen).toContain('folio: listening on 0.0.0.0')
    // The code a phone scans: the module rows of that URL's QR code, dark modules drawn (the
    // colours put them on bright white).
    for (const row of qrLines(networkUrl)) expect(screen).toContain(row.trimEnd())
    expect(await terminal.styled()).toBe(true)
    // The phone reaches the server; its owner API needs the key there, as the warning says.
    expect((await testApi(networkUrl).send(listFolios)).status).toBe(401)
    expect((await testApi(networkUrl).send(getOpenApi)).status).toBe(200)

    await terminal.send('\x03') // Ctrl+C
    expect(await waitForExit(terminal)).toBe(0)
    expect(await terminal.screen()).toContain('Stopped.')
  })
})
