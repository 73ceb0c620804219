import { describe, expect, it } from 'vitest'
import { Bm25Index, oneEditApart } from './bm25-index.js'
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
