import { describe, expect, it } from 'vitest'
import { canonicalize } from './canonical.js'

/** RFC 8785 key order by another route: every object rebuilt with `Object.keys(o).sort()`. */
function reference(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted)
    if (v === null || typeof v !== 'object') return v
    const o = v as Record<string, unknown>
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, sorted(o[k])]),
    )
  }
  return JSON.stringify(sorted(value))
}

describe('canonical key order', () => {
  it('matches a plain sort for small and large objects, any code units, already sorted or not', () => {
    let seed = 7
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    const alphabet = ['a', 'b', 'Z', '_', 'é', '\u{1F600}', '\uFFFD', 'aa', 'ab', 'A']
    const key = () =>
      Array.from({ length: 1 + Math.floor(random() * 3) }, () => alphabet[Math.floor(random() * 10)]).join('')
    for (let round = 0; round < 300; round++) {
      const object: Record<string, unknown> = {}
      const size = Math.floor(random() * 24)
      for (let i = 0; i < size; i++) object[`${key()}${i % 3 === 0 ? '' : i}`] = { [key()]: i, z: [i] }
      expect(canonicalize(object)).toBe(reference(object))
    }
  })
})
