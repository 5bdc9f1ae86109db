import { describe, expect, it } from 'vitest'
import { applyDelta, createDelta, DeltaError } from '../src/domain/delta.js'
import { checkFilePath } from '../src/domain/file-paths.js'
import { isFolioId, newFolioId, versionNumber } from '../src/domain/ids.js'
import { mergeReactions } from '../src/domain/reactions.js'

/** A small seeded generator, so a failing case can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed / 0x7fffffff
  }
}

describe('delta', () => {
  it('round-trips random edits of random texts', () => {
    const rnd = random(42)
    const pieces = ['<p>hello</p>\n', 'lorem ipsum dolor sit amet\n', 'x', '\n', '€uro ünïcode line\n', '\u0000binary\u00ff\n']
    const text = (n: number) => Buffer.from(Array.from({ length: n }, () => pieces[Math.floor(rnd() * pieces.length)]).join(''))
    for (let i = 0; i < 500; i++) {
      const base = text(Math.floor(rnd() * 400))
      const lines = base.toString('latin1').split('\n')
      for (let e = 0; e < 3; e++)
        lines.splice(Math.floor(rnd() * lines.length), Math.floor(rnd() * 3), ...(rnd() < 0.5 ? ['edited line here, long enough'] : []))
      const target = rnd() < 0.1 ? text(Math.floor(rnd() * 50)) : Buffer.from(lines.join('\n'), 'latin1')
      expect(applyDelta(base, createDelta(base, target)).equals(target)).toBe(true)
    }
  })

  it('encodes a one-line change of a megabyte in a few dozen bytes', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `<tr><td>${i}</td><td>row of a big table</td></tr>`)
    const base = Buffer.from(lines.join('\n'))
    lines[12_345] = '<tr><td>changed</td></tr>'
    const target = Buffer.from(lines.join('\n'))
    const delta = createDelta(base, target)
    expect(delta.length).toBeLessThan(64)
    expect(applyDelta(base, delta).equals(target)).toBe(true)
  })

  it('refuses a damaged delta instead of producing wrong bytes', () => {
    const base = Buffer.from('a'.repeat(100))
    const delta = createDelta(base, Buffer.from(`${'a'.repeat(100)}tail`))
    expect(() => applyDelta(base, delta.subarray(0, delta.length - 2))).toThrow(DeltaError)
    expect(() => applyDelta(Buffer.from('short'), delta)).toThrow(DeltaError)
  })
})

describe('file paths', () => {
  it.each(['index.html', 'css/site.css', './img/logo.png', 'a b/ü.html', '.well-known/x'])('accepts %s', (p) => {
    expect(checkFilePath(p).ok).toBe(true)
  })
  it.each(['', '/etc/passwd', 'C:/x', '../x', 'a/../../x', 'a\\b', 'a\u0000b', 'a//b', 'a/./b', 'x\ny', 'a'.repeat(513)])('refuses %j', (p) => {
    expect(checkFilePath(p).ok).toBe(false)
  })
  it('normalises a leading ./', () => {
    expect(checkFilePath('./a/b.html')).toEqual({ ok: true, path: 'a/b.html' })
  })
})

describe('ids', () => {
  it('makes unguessable ids that the id check accepts', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newFolioId()))
    expect(ids.size).toBe(10_000)
    for (const id of ids) expect(isFolioId(id)).toBe(true)
    const firstChars = new Set([...ids].map((id) => id[0]))
    expect(firstChars.size).toBe(62)
  })
  it.each(['..', 'a/b', '', 'x'.repeat(65), 'a.b', 'a%2e'])('refuses %j as a folio id', (id) => {
    expect(isFolioId(id)).toBe(false)
  })
  it('reads version numbers strictly', () => {
    expect(versionNumber('v12')).toBe(12)
    for (const bad of ['v0', 'v01', '12', 'v1.5', 'v-1', 'V1', 'v1 ']) expect(versionNumber(bad)).toBeUndefined()
  })
})

describe('reactions', () => {
  it('follows the spec rules: four emoji, no negatives, floored, merged', () => {
    expect(mergeReactions({ '👍': 1, '🔥': 4 }, { '👍': 2.9, '❤️': -1, '💡': 3, '🙃': 7, '🔥': 'x', constructor: 5 })).toEqual({ '👍': 2, '🔥': 4, '💡': 3 })
    expect(mergeReactions({}, { '👍': Number.POSITIVE_INFINITY, '❤️': Number.NaN })).toEqual({})
  })
})
