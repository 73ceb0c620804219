import { describe, expect, it } from 'vitest'
import { Bm25Index } from './bm25-index.js'
import { nearestTerm, oneEditApart, TRIGRAM_MIN } from './near-term.js'
import { correctedTerms } from './search.js'
import { analyze } from './tokenizer.js'

const index = (...texts: string[]) => {
  const bm25 = new Bm25Index()
  texts.forEach((t, doc) => {
    bm25.upsert(doc, { fields: [[], [], analyze(t)], sequence: [], ids: [] })
  })
  return bm25
}

describe('term correction', () => {
  it('one edit: insertion, deletion, substitution or a swap of neighbours, never the same word', () => {
    expect(oneEditApart('midle', 'middle')).toBe(true)
    expect(oneEditApart('middle', 'midle')).toBe(true)
    expect(oneEditApart('adversery', 'adversary')).toBe(true)
    expect(oneEditApart('denail', 'denial')).toBe(true)
    expect(oneEditApart('denial', 'denial')).toBe(false)
    expect(oneEditApart('spearfish', 'spearphish')).toBe(false)
    expect(oneEditApart('abc', 'abcde')).toBe(false)
  })

  it('reads a word no document has as the most frequent near term, and leaves known, short and numeric words', () => {
    const bm25 = index('denial of view', 'denial of control', 'a malicious attachment', 'T0815 view')
    const { terms, corrections } = correctedTerms('denail by atachment t0816 veiw', bm25)
    expect(corrections).toEqual([
      { word: 'denail', term: 'denial' },
      { word: 'atachment', term: 'attachment' },
    ])
    // "veiw" (a four-letter stem) and "t0816" (a number) are not corrected.
    expect(terms).toEqual(['denial', 'attachment', 't0816', 'veiw'])
  })

  it('falls back to shared trigrams for longer words', () => {
    const bm25 = index('remote access', 'authentication bypass', 'authentication tokens')
    expect(bm25.nearTerm('authentcation')).toBe('authentication')
    expect(bm25.nearTerm('authenticaton')).toBe('authentication')
    expect(bm25.nearTerm('zzzzzzz')).toBeNull()
  })
})

/** The rules of `nearestTerm` written the plain way (slices, string sets): the scan must agree with them. */
function plainNearest(vocabulary: Map<string, number>, term: string): string | null {
  const oneEdit = (a: string, b: string) => {
    if (a === b) return false
    for (let i = 0; i <= Math.max(a.length, b.length); i++) {
      if (a.slice(0, i) + a.slice(i + 1) === b || b.slice(0, i) + b.slice(i + 1) === a) return true
      if (a.length === b.length && a.slice(0, i) + a.slice(i + 1) === b.slice(0, i) + b.slice(i + 1))
        return true
      if (a.length === b.length && a.slice(0, i) + a[i + 1] + a[i] + a.slice(i + 2) === b) return true
    }
    return false
  }
  const grams = (t: string) => new Set([...Array(t.length)].map((_, i) => `^${t}$`.slice(i, i + 3)))
  let best: string | null = null
  let bestDf = 0
  for (const [c, df] of vocabulary) if (df > bestDf && oneEdit(term, c)) [best, bestDf] = [c, df]
  if (best !== null || term.length < 6) return best
  const mine = grams(term)
  let bestSimilarity = TRIGRAM_MIN
  for (const [c, df] of vocabulary) {
    if (c[0] !== term[0] || Math.abs(c.length - term.length) > 3 || df < 2) continue
    const other = grams(c)
    const shared = [...other].filter((g) => mine.has(g)).length
    const similarity = shared / (mine.size + other.size - shared)
    if (similarity > bestSimilarity) [best, bestSimilarity] = [c, similarity]
  }
  return best
}

describe('nearest term scan', () => {
  it('agrees with the plain reading of its rules on random vocabularies and misspellings', () => {
    let state = 7
    const rand = (n: number) => {
      // mulberry32: an LCG's low bits repeat with a short period, and picked only short words here
      state = (state + 0x6d2b79f5) | 0
      let t = Math.imul(state ^ (state >>> 15), 1 | state)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)
    }
    const letters = 'abcdeéz'
    let found = 0
    let byTrigrams = 0
    const word = (n: number) => Array.from({ length: n }, () => letters[rand(letters.length)]).join('')
    for (let round = 0; round < 200; round++) {
      const vocabulary = new Map<string, number>()
      for (let i = 0; i < 60; i++) vocabulary.set(word(i % 3 === 0 ? 14 + rand(5) : 3 + rand(7)), 1 + rand(4))
      const known = [...vocabulary.keys()]
      for (let q = 0; q < 10; q++) {
        const base = known[rand(known.length)] as string
        const at = rand(base.length)
        const term = [
          base.slice(0, at) + base.slice(at + 1),
          base.slice(0, at) + letters[rand(letters.length)] + base.slice(at),
          base.slice(0, at) + letters[rand(letters.length)] + base.slice(at + 1),
          // two deletions far apart in a long word: past one edit, only the trigram rule can find it
          base.length < 14 ? word(6) : base.slice(0, 3) + base.slice(4, -4) + base.slice(-3),
        ][q % 4] as string
        if (vocabulary.has(term)) continue
        const postings = new Map([...vocabulary].map(([t, df]) => [t, { size: df }]))
        const near = nearestTerm(postings, term)
        expect(near).toBe(plainNearest(vocabulary, term))
        if (near !== null) found++
        if (near !== null && term.length >= 6 && !oneEditApart(term, near)) byTrigrams++
      }
    }
    // Both rules were exercised, not only the null answer.
    expect(found).toBeGreaterThan(500)
    expect(byTrigrams).toBeGreaterThan(20)
  })
})
