import { describe, expect, it } from 'vitest'
import { Bm25Index, lexicalScore } from './bm25-index.js'
import { tokenize } from './tokenizer.js'

describe('Bm25Index', () => {
  // Three documents, by hand: lengths 4, 2, 3 -> avgdl 3; N 3.
  const index = new Bm25Index()
  index.upsert(1, tokenize('modbus write modbus coil')) // tf(modbus)=2, len 4
  index.upsert(2, tokenize('firmware update')) // len 2
  index.upsert(3, tokenize('modbus firmware flash')) // tf(modbus)=1, len 3

  it('scores a term exactly as FACTS defines BM25', () => {
    // df(modbus)=2 -> idf = ln(1 + (3-2+0.5)/(2+0.5)) = ln(1.6)
    const idf = Math.log(1.6)
    // doc 1: tf 2, len 4: 2*2.2 / (2 + 1.2*(0.25 + 0.75*4/3)) = 4.4 / 3.5
    const d1 = (idf * 4.4) / 3.5
    // doc 3: tf 1, len 3: 2.2 / (1 + 1.2) = 1
    const d3 = idf * 1
    const hits = index.search(['modbus'])
    expect(hits.get(1)?.raw).toBeCloseTo(d1, 12)
    expect(hits.get(3)?.raw).toBeCloseTo(d3, 12)
    expect(hits.has(2)).toBe(false)
    expect(lexicalScore(d1)).toBeCloseTo(d1 / (d1 + 2), 12)
  })

  it('sums over terms and lists the matched ones', () => {
    const hits = index.search(['firmware', 'modbus'])
    expect(hits.get(3)?.matched).toEqual(['firmware', 'modbus'])
    // df(firmware)=2, doc 3 len 3 -> ln(1.6)*1; plus modbus ln(1.6)*1
    expect(hits.get(3)?.raw).toBeCloseTo(2 * Math.log(1.6), 12)
  })

  it('updates and removes incrementally (N, df and avgdl follow)', () => {
    const i = new Bm25Index()
    i.upsert(1, ['aa', 'bb'])
    i.upsert(2, ['aa'])
    i.upsert(2, ['cc'])
    expect(i.search(['aa']).size).toBe(1)
    i.remove(1)
    expect(i.search(['aa']).size).toBe(0)
    expect(i.size).toBe(1)
    expect(i.termCount).toBe(1)
    // single doc, df 1: idf ln(1 + 0.5/1.5); tf 1, len = avgdl -> factor 1
    expect(i.search(['cc']).get(2)?.raw).toBeCloseTo(Math.log(1 + 0.5 / 1.5), 12)
  })

  it('top: the best documents by the same scores, filtered, ties by id, after removals too', () => {
    const big = new Bm25Index()
    // 600 documents so the pre-selection floor (more than 4 x limit candidates) takes part.
    for (let doc = 0; doc < 600; doc++)
      big.upsert(
        doc,
        tokenize(`${'pump '.repeat(1 + (doc % 7))} valve ${doc % 3 === 0 ? 'alarm' : 'noise'} x${doc}`),
      )
    big.remove(5)
    const terms = ['pump', 'alarm']
    const all = [...big.search(terms)]
      .map(([doc, hit]) => ({ doc, raw: hit.raw }))
      .sort((a, b) => b.raw - a.raw || a.doc - b.doc)
    const odd = (doc: number) => doc % 2 === 1
    for (const limit of [1, 10, 100, 1000]) {
      const expected = all.filter((h) => odd(h.doc)).slice(0, limit)
      const got = big.top(terms, limit, odd)
      expect(got.map((h) => h.doc)).toEqual(expected.map((h) => h.doc))
      for (const [i, h] of got.entries()) expect(h.raw).toBeCloseTo(expected[i]?.raw as number, 12)
    }
    // Rejecting nearly everything still finds the few admitted, from beyond the pre-selected pool.
    expect(big.top(terms, 3, (doc) => doc >= 597).map((h) => h.doc)).toEqual(
      all.filter((h) => h.doc >= 597).map((h) => h.doc),
    )
    expect(big.top(['absent'], 5, () => true)).toEqual([])
    expect(big.top(terms, 0, () => true)).toEqual([])
  })
})
