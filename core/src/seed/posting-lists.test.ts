import { describe, expect, it } from 'vitest'
import { PostingLists } from './posting-lists.js'

/** A low word from name, labels and body frequencies (bm25-index.ts's layout). */
const low = (name: number, labels: number, body: number) => name | (labels << 10) | (body << 20)

/** Random sets and deletes of small and large frequencies against a Map: the same answers throughout. */
describe('PostingLists', () => {
  it('answers exactly as a map of term -> doc -> frequencies, words too wide for 16 bits included', () => {
    const lists = new PostingLists()
    const truth = new Map<string, { low: number; context: number }>()
    let s = 17
    const rand = (n: number) => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0
      return s % n
    }
    const wideOr = (small: number, big: number) => (rand(10) === 0 ? big : small)
    for (let step = 0; step < 20_000; step++) {
      const term = rand(40)
      const doc = rand(300)
      const key = `${term}:${doc}`
      if (rand(4) === 0) {
        lists.delete(term, doc)
        truth.delete(key)
      } else {
        const f = {
          low: low(
            wideOr(rand(16), 16 + rand(1000)),
            wideOr(rand(4), 4 + rand(1000)),
            wideOr(rand(128), 128 + rand(383)),
          ),
          context: wideOr(rand(7), 7 + rand(5000)),
        }
        if (f.low === 0 && f.context === 0) f.context = 1
        lists.set(term, doc, f.low, f.context)
        truth.set(key, f)
      }
      if (step % 1000 === 0) lists.trim()
    }
    for (let term = 0; term < 40; term++) {
      const seen: [number, { low: number; context: number }][] = []
      lists.forEach(term, (doc, l, context) => seen.push([doc, { low: l, context }]))
      const expected = [...truth]
        .filter(([k]) => Number(k.split(':')[0]) === term)
        .map(([k, f]) => [Number(k.split(':')[1]), f] as [number, { low: number; context: number }])
        .sort((a, b) => a[0] - b[0])
      expect(seen).toEqual(expected)
      expect(lists.count(term)).toBe(expected.length)
      for (const [doc, f] of expected) expect(lists.get(term, doc)).toEqual(f)
    }
  })
})
