import { describe, expect, it } from 'vitest'
import { packVocabulary, vocabularyFromText, vocabularyRank, vocabularySize } from './vocabulary.js'

describe('packed vocabulary', () => {
  const words = ['the', 'cat', 'cats', 'ca', 'naïve', '東京', 'malware']
  const v = packVocabulary(words)

  it('finds every word at its rank', () => {
    expect(vocabularySize(v)).toBe(words.length)
    for (const [rank, w] of words.entries()) expect(vocabularyRank(v, w)).toBe(rank)
  })

  it('misses words that are absent, prefixes and extensions of present ones included', () => {
    for (const w of ['c', 'catz', 'cat ', 'naive', '東', '', 'dog']) expect(vocabularyRank(v, w)).toBe(-1)
  })

  it('keeps the first rank of a repeated word, as a Map filled in rank order would', () => {
    const d = packVocabulary(['a1', 'b2', 'a1'])
    expect(vocabularyRank(d, 'a1')).toBe(0)
    expect(vocabularyRank(d, 'b2')).toBe(1)
  })

  it('reads the cache form (words each followed by a newline) to the same lookups', () => {
    const fromText = vocabularyFromText(words.map((w) => `${w}\n`).join(''))
    expect(Array.from(fromText.offsets)).toEqual(Array.from(v.offsets))
    for (const [rank, w] of words.entries()) expect(vocabularyRank(fromText, w)).toBe(rank)
  })

  it('an empty vocabulary finds nothing', () => {
    const empty = packVocabulary([])
    expect(vocabularySize(empty)).toBe(0)
    expect(vocabularyRank(empty, 'the')).toBe(-1)
  })

  it('stays exact under a full table of colliding probes (10k words)', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `w${i.toString(36)}`)
    const big = packVocabulary(many)
    expect(big.slots.length).toBeGreaterThanOrEqual(20_000)
    for (const [rank, w] of many.entries()) expect(vocabularyRank(big, w)).toBe(rank)
    expect(vocabularyRank(big, 'w')).toBe(-1)
  })
})
