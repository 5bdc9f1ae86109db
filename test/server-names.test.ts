import { networkInterfaces } from 'node:os'
import { describe, expect, it } from 'vitest'
import { isThisMachine, sameServer } from '../src/cli/origin.js'
import { resolveTarget } from '../src/cli/target.js'

// Issue 26: one server by any name. A key saved for it goes to its other names, never elsewhere.
describe('sameServer', () => {
  it('takes the names of this machine on the same scheme and port as one server', () => {
    const names = [
      'http://localhost:4517',
      'http://127.0.0.1:4517',
      'http://127.1.2.3:4517/',
      'http://[::1]:4517',
      'http://LOCALHOST.:4517',
      'http://[::ffff:127.0.0.1]:4517',
      'http://0.0.0.0:4517',
    ]
    for (const a of names) for (const b of names) expect(sameServer(a, b), `${a} ~ ${b}`).toBe(true)
    // URL's own spellings of 127.0.0.1 are the same address.
    expect(sameServer('http://2130706433:4517', 'http://localhost:4517')).toBe(true)
    // Default ports spelled out or not.
    expect(sameServer('http://localhost', 'http://127.0.0.1:80')).toBe(true)
    expect(sameServer('https://folio.example.com', 'https://folio.example.com:443/base')).toBe(true)
  })

  it("counts the machine's own network addresses as this machine, but not link-local ones", () => {
    const own = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .filter((entry) => !entry.internal && !entry.address.startsWith('fe80'))
    for (const { address } of own) {
      const host = address.includes(':') ? `[${address}]` : address
      expect(sameServer(`http://${host}:4517`, 'http://localhost:4517'), address).toBe(true)
      expect(isThisMachine(`http://${host}:4517`)).toBe(true)
    }
    expect(isThisMachine('http://[fe80::1]:4517')).toBe(false)
  })

  it('keeps another port, another scheme and any host that is not this machine apart', () => {
    expect(sameServer('http://localhost:4517', 'http://127.0.0.1:4518')).toBe(false)
    expect(sameServer('http://localhost:4517', 'https://localhost:4517')).toBe(false)
    expect(sameServer('http://localhost:4517', 'http://evil.example:4517')).toBe(false)
    // A DNS name may point anywhere, even one under .localhost or the machine's own name.
    expect(sameServer('http://localhost:4517', 'http://app.localhost:4517')).toBe(false)
    // An address of no interface here (TEST-NET-3, never assigned to a machine).
    expect(sameServer('http://localhost:4517', 'http://203.0.113.7:4517')).toBe(false)
    expect(sameServer('http://localhost:4517', 'not a url')).toBe(false)
    // The same remote host is the same server; two remote hosts are two.
    expect(sameServer('https://Folio.Example.com/', 'https://folio.example.com')).toBe(true)
    expect(sameServer('https://a.example.com', 'https://b.example.com')).toBe(false)
    expect(isThisMachine('http://evil.example:4517')).toBe(false)
  })
})

describe('resolveTarget', () => {
  const link = { server: 'http://127.0.0.1:4517', file: '/work/site/.folio/link.json' }

  it('sends the saved key to its server by another name, and to no other server', () => {
    const profile = { server: 'http://localhost:4517', key: 'folio_live_saved' }
    expect(resolveTarget({ server: '127.0.0.1:4517' }, profile, {})).toMatchObject({
      server: 'http://127.0.0.1:4517',
      key: 'folio_live_saved',
      keySource: 'profile',
    })
    expect(resolveTarget({ server: '127.0.0.1:4518' }, profile, {})).toMatchObject({ keySource: 'none', profileServerNotUsed: 'http://localhost:4517' })
    expect(resolveTarget({}, profile, { FOLIO_URL: 'http://evil.example:4517' }).key).toBeUndefined()
  })

  it("uses the linked folder's server when nothing else names one, and says so", () => {
    const target = resolveTarget({}, undefined, { PORT: '3000' }, link)
    expect(target).toMatchObject({ server: 'http://127.0.0.1:4517', serverSource: 'link', linkFile: link.file, keySource: 'none' })
    // The link comes after --server, FOLIO_URL and the login profile.
    expect(resolveTarget({ server: 'localhost:9' }, undefined, {}, link).serverSource).toBe('flag')
    expect(resolveTarget({}, undefined, { FOLIO_URL: 'http://localhost:9' }, link).serverSource).toBe('environment')
    expect(resolveTarget({}, { server: 'http://localhost:9' }, {}, link).serverSource).toBe('profile')
  })

  it("sends a key from --key or FOLIO_API_KEY to a link's server only when it is this machine", () => {
    expect(resolveTarget({}, undefined, { FOLIO_API_KEY: 'folio_live_env' }, link)).toMatchObject({ key: 'folio_live_env', keySource: 'environment' })
    const away = { server: 'https://evil.example', file: '/cloned/.folio/link.json' }
    expect(resolveTarget({}, undefined, { FOLIO_API_KEY: 'folio_live_env' }, away)).toMatchObject({
      server: 'https://evil.example',
      keySource: 'none',
      keyWithheld: 'FOLIO_API_KEY',
    })
    expect(resolveTarget({ key: 'folio_live_flag' }, undefined, {}, away)).toMatchObject({ keySource: 'none', keyWithheld: '--key' })
    expect(resolveTarget({ key: 'folio_live_flag' }, undefined, {}, away).key).toBeUndefined()
    // Named by the user, the same server gets the key.
    expect(resolveTarget({ server: 'https://evil.example', key: 'folio_live_flag' }, undefined, {}, away)).toMatchObject({
      key: 'folio_live_flag',
      keySource: 'flag',
    })
  })
})
