import { describe, expect, it } from 'vitest'
import { DocumentTerms } from './document-terms.js'

describe('DocumentTerms', () => {
  it('gives back terms (ascending) and sequences exactly, for ids of every varint length', () => {
    const docs = new DocumentTerms()
    const big = [0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456, 2 ** 31 - 1]
    docs.set(3, [...big].reverse(), [2 ** 31 - 1, 0, 128, 128, 5], ['indicator--x'])
    docs.set(0, [], [], [])
    docs.set(70_000, [42], [42, 42], ['a', 'b'])
    expect([...(docs.termsOf(3) ?? [])]).toEqual(big)
    expect([...(docs.sequence(3) ?? [])]).toEqual([2 ** 31 - 1, 0, 128, 128, 5])
    expect([...(docs.termsOf(0) ?? [])]).toEqual([])
    expect([...(docs.sequence(0) ?? [])]).toEqual([])
    expect([...(docs.sequence(70_000) ?? [])]).toEqual([42, 42])
    expect(docs.idsOf(3)).toEqual(['indicator--x'])
    expect(docs.idsOf(70_000)).toEqual(['a', 'b'])
    expect(docs.termsOf(1)).toBeUndefined()
    expect(docs.size).toBe(3)
  })

  it('keeps every block through rewrites, deletes, compaction and trimming', () => {
    const docs = new DocumentTerms()
    const expected = new Map<number, { terms: number[]; sequence: number[] }>()
    let seed = 7
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    for (let round = 0; round < 20_000; round++) {
      const doc = rnd(500)
      if (rnd(5) === 0) {
        docs.delete(doc)
        expected.delete(doc)
        continue
      }
      const terms = [...new Set(Array.from({ length: rnd(30) }, () => rnd(1 << (1 + rnd(30)))))]
      const sequence = Array.from({ length: rnd(40) }, () => rnd(1 << (1 + rnd(30))))
      docs.set(doc, terms, sequence, [])
      expected.set(doc, { terms: [...terms].sort((a, b) => a - b), sequence })
      if (round % 5000 === 4999) docs.trim()
    }
    expect(docs.size).toBe(expected.size)
    expect([...docs.keys()].sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b))
    for (const [doc, want] of expected) {
      expect([...(docs.termsOf(doc) ?? [])]).toEqual(want.terms)
      expect([...(docs.sequence(doc) ?? [])]).toEqual(want.sequence)
    }
  })
})
