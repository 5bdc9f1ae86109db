import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { webcrypto } from 'node:crypto'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { newAccessKey, weakAccessKeyWarning } from '../src/domain/access-keys.js'
import { runCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

/**
 * The keys folio makes are out of reach of online guessing (≥ 96 bits); a key chosen by hand still
 * works, and a weak one is said so. Anyone can try a few keys a minute from each address they
 * have (key-guesses.ts): a word falls, 96 random bits do not.
 */
const MIN_BITS = 96
const BASE62 = /^[0-9A-Za-z]+$/
const bitsOfBase62 = (key: string) => key.length * Math.log2(62)

describe('newAccessKey', () => {
  it('makes keys of at least 96 bits, every character of [0-9A-Za-z] equally likely', () => {
    const keys = Array.from({ length: 10_000 }, () => newAccessKey())
    for (const key of keys.slice(0, 100)) {
      expect(key).toMatch(BASE62)
      expect(bitsOfBase62(key)).toBeGreaterThanOrEqual(MIN_BITS)
      expect(weakAccessKeyWarning(key)).toBeUndefined()
    }
    expect(new Set(keys).size).toBe(keys.length)
    const counts = new Map<string, number>()
    for (const key of keys) for (const c of key) counts.set(c, (counts.get(c) ?? 0) + 1)
    // 62 characters, each expected 1/62 of all: a plain `byte % 62` would give the first eight
    // 25 % more (5/256 against 4/256), far outside these bounds (± 7 standard deviations).
    const total = keys.join('').length
    const expected = total / 62
    const spread = 7 * Math.sqrt(expected)
    expect(counts.size).toBe(62)
    for (const [c, n] of counts) expect(Math.abs(n - expected), `“${c}”: ${n} of ${total}`).toBeLessThan(spread)
  })

  it('works in a browser bundle: no node module, only the Web Crypto API', async () => {
    const bundle = await build({
      entryPoints: [join(import.meta.dirname, '../src/domain/access-keys.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'accessKeys',
      write: false,
      logLevel: 'silent',
    })
    const key = runInNewContext(`${bundle.outputFiles[0]!.text}; accessKeys.newAccessKey()`, {
      crypto: { getRandomValues: (a: Uint8Array) => webcrypto.getRandomValues(a) },
    })
    expect(key).toMatch(BASE62)
    expect(bitsOfBase62(key)).toBeGreaterThanOrEqual(MIN_BITS)
  })
})

describe('weakAccessKeyWarning', () => {
  it('warns about short keys and keys of few kinds of characters, with what to do; not about strong ones', () => {
    expect(weakAccessKeyWarning('blue whale')).toBe(
      'This key is short: anyone can try a few keys a minute from each address they have; use 12 or more characters, or let folio make one.',
    )
    // 12 digits: 12 × log2(10) ≈ 39 bits.
    expect(weakAccessKeyWarning('123456789012')).toMatch(
      /^This key is easy to guess \(about 39 bits\): .*make it longer or mix letters, capitals, digits and symbols, or let folio make one\.$/,
    )
    expect(weakAccessKeyWarning('  short  ')).toMatch(/^This key is short/)
    expect(weakAccessKeyWarning('correct horse battery staple')).toBeUndefined()
    expect(weakAccessKeyWarning('Tr0ub4dor&3xyz')).toBeUndefined()
  })
})

describe('folio create and folio set with --private', () => {
  const s = useServer()
  let work: string
  const cli = (args: string[]) => runCli(['--server', s.ts.url, ...args], { FOLIO_CONFIG_DIR: work })
  const accessKeyOf = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.accessKey as string
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'folio-key-guess-cli-'))
  })
  afterAll(() => rm(work, { recursive: true, force: true }))

  it('make keys of at least 96 bits, and say nothing about them', async () => {
    const created = await cli(['create', 'Board pack', '--private', '--publish', '--json'])
    expect(created.code).toBe(0)
    const { id, accessKey, warning } = created.json()
    expect(accessKey).toMatch(BASE62)
    expect(bitsOfBase62(accessKey)).toBeGreaterThanOrEqual(MIN_BITS)
    expect(warning).toBeUndefined()
    expect(created.stderr).toBe('')
    expect(await accessKeyOf(id)).toBe(accessKey)

    const renewed = await cli(['set', id, '--private'])
    expect(renewed.code).toBe(0)
    const key = /^Access key: (\S+)$/m.exec(renewed.stdout)?.[1]
    expect(key, renewed.stdout).toMatch(BASE62)
    expect(bitsOfBase62(key!)).toBeGreaterThanOrEqual(MIN_BITS)
    expect(key).not.toBe(accessKey)
    expect(renewed.stderr).toBe('')
    expect(await accessKeyOf(id)).toBe(key)
  })

  it('take a short key given by hand, and warn about it on stderr and in --json', async () => {
    const warning = weakAccessKeyWarning('blue whale')!
    const created = await cli(['create', 'Board pack', '--private', '--access-key', 'blue whale', '--json'])
    expect(created.code).toBe(0)
    expect(created.json()).toMatchObject({ accessKey: 'blue whale', warning })
    expect(created.stderr).toContain(warning)
    const { id } = created.json()
    expect(await accessKeyOf(id)).toBe('blue whale')

    const set = await cli(['set', id, '--access-key', '123456789012'])
    expect(set.code).toBe(0)
    expect(set.stdout).toContain('Access key: 123456789012')
    expect(set.stderr).toContain(weakAccessKeyWarning('123456789012')!)
    expect(await accessKeyOf(id)).toBe('123456789012')
    const setJson = await cli(['set', id, '--access-key', 'red whale', '--json'])
    expect(setJson.json()).toMatchObject({ success: true, project: { accessKey: 'red whale' }, warning: weakAccessKeyWarning('red whale') })
    expect(setJson.stderr).toContain(weakAccessKeyWarning('red whale')!)

    // A strong key given by hand: no word about it.
    const strong = await cli(['set', id, '--access-key', 'correct horse battery staple', '--json'])
    expect(strong.json().warning).toBeUndefined()
    expect(strong.stderr).toBe('')
  })
})
