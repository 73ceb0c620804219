import { describe, expect, it } from 'vitest'
import { Bm25Index, bestOf, FIELD_WEIGHT, lexicalScore } from './bm25-index.js'
import { analyze, tokenize } from './tokenizer.js'

/** A document with text in the body field only. */
const body = (text: string) => ({ fields: [[], [], tokenize(text)], sequence: [], ids: [] })

describe('Bm25Index (BM25F)', () => {
  // Three documents, by hand: body lengths 4, 2, 3 -> avgdl 3; N 3.
  const index = new Bm25Index()
  index.upsert(1, body('modbus write modbus coil')) // tf(modbus)=2, len 4
  index.upsert(2, body('firmware update')) // len 2
  index.upsert(3, body('modbus firmware flash')) // tf(modbus)=1, len 3

  it('with one field it scores exactly as FACTS defines BM25', () => {
    // df(modbus)=2 -> idf = ln(1 + (3-2+0.5)/(2+0.5)) = ln(1.6)
    const idf = Math.log(1.6)
    // doc 1: tf 2, len 4: 2*2.2 / (2 + 1.2*(0.25 + 0.75*4/3)) = 4.4 / 3.5
    const d1 = (idf * 4.4) / 3.5
    const hits = index.search(['modbus'])
    expect(hits.get(1)).toBeCloseTo(d1, 12)
    expect(hits.get(3)).toBeCloseTo(idf, 12) // tf 1, len 3 = avgdl -> factor 1
    expect(index.explain(1, ['modbus'])).toEqual({
      raw: hits.get(1),
      fields: [0, 0, hits.get(1), 0],
      matched: ['modbus'],
    })
    expect(hits.has(2)).toBe(false)
    expect(lexicalScore(d1)).toBeGreaterThan(lexicalScore(idf))
  })

  it('keeps the exact length of a field past 65,535 tokens, and removing it leaves the scores as before', () => {
    const i = new Bm25Index()
    i.upsert(1, body('modbus write modbus coil'))
    i.upsert(2, body('firmware update'))
    const before = i.search(['modbus']).get(1)
    const long = Array.from({ length: 70_000 }, (_, k) => `w${k % 50}`).join(' ')
    i.upsert(3, body(`modbus ${long}`))
    // Its length counts whole: with a clamped length the long document would score above its due.
    const withLong = i.search(['modbus'])
    expect(withLong.get(3)).toBeLessThan(withLong.get(1) as number)
    i.remove(3)
    expect(i.search(['modbus']).get(1)).toBeCloseTo(before as number, 12)
  })

  it('sums over terms and lists the matched ones', () => {
    const hits = index.search(['firmware', 'modbus'])
    expect(index.explain(3, ['firmware', 'modbus']).matched).toEqual(['firmware', 'modbus'])
    expect(index.explain(3, ['firmware', 'modbus']).raw).toBe(hits.get(3))
    expect(hits.get(3)).toBeCloseTo(2 * Math.log(1.6), 12)
  })

  it('weights the name field and saturates once per term across fields', () => {
    const i = new Bm25Index()
    i.upsert(1, { fields: [['plc'], [], []], sequence: [], ids: [] })
    i.upsert(2, { fields: [[], [], ['plc']], sequence: [], ids: [] })
    i.upsert(3, { fields: [['plc'], [], ['plc']], sequence: [], ids: [] })
    i.upsert(4, { fields: [['x'], [], ['y']], sequence: [], ids: [] })
    const hits = i.search(['plc'])
    const idf = Math.log(1 + 1.5 / 3.5)
    // name: len 1, avg 3/4, b 0.5 -> weighted tf = weight / (0.5 + 0.5 / 0.75), saturated once.
    const w = (FIELD_WEIGHT[0] as number) / (0.5 + 0.5 / 0.75)
    expect(hits.get(1)).toBeCloseTo((idf * w * 2.2) / (w + 1.2), 12)
    expect(hits.get(1)).toBeGreaterThan(hits.get(2) as number)
    // Both fields: more than the name alone, less than the two scored separately.
    const both = hits.get(3) as number
    expect(both).toBeGreaterThan(hits.get(1) as number)
    expect(both).toBeLessThan((hits.get(1) as number) + (hits.get(2) as number))
    expect(i.explain(3, ['plc']).fields.reduce((a, b) => a + b, 0)).toBeCloseTo(both, 12)
  })

  it('scores the context field below the body, keeps the four fields apart, and sums them to the raw score', () => {
    const i = new Bm25Index()
    const doc = (b: string[], c: string[]) => ({ fields: [[], [], b, c], sequence: [], ids: [] })
    i.upsert(1, doc(['relay', 'trip'], ['x', 'y']))
    i.upsert(2, doc(['x', 'y'], ['relay', 'trip']))
    i.upsert(3, doc(['x', 'y'], ['x', 'y']))
    const hits = i.search(['relay'])
    // Same lengths and tf, weight 1 in the body against CONTEXT weight in the context.
    expect(FIELD_WEIGHT[3]).toBeLessThan(FIELD_WEIGHT[2] as number)
    expect(hits.get(1)).toBeGreaterThan(hits.get(2) as number)
    const idf = i.idf('relay')
    const w = FIELD_WEIGHT[3] as number // len 2 = the context's average: no length factor
    expect(hits.get(2)).toBeCloseTo((idf * w * 2.2) / (w + 1.2), 12)
    expect(i.explain(2, ['relay'])).toEqual({
      raw: hits.get(2),
      fields: [0, 0, 0, hits.get(2)],
      matched: ['relay'],
    })
    // Large frequencies in every field (body capped at 511, the others at 1023) do not bleed into each other.
    const big = new Bm25Index()
    const many = (n: number) => Array.from({ length: n }, () => 'valve')
    big.upsert(1, { fields: [many(5), many(7), many(600), many(2000)], sequence: [], ids: [] })
    big.upsert(2, { fields: [['a'], ['b'], ['c'], ['d']], sequence: [], ids: [] })
    const parts = big.explain(1, ['valve']).fields
    expect(parts.every((p) => p > 0)).toBe(true)
    expect(parts.reduce((a, b) => a + b, 0)).toBeCloseTo(big.search(['valve']).get(1) as number, 12)
    big.remove(1)
    expect(big.search(['valve']).size).toBe(0)
  })

  it('finds ids whole and case-insensitively, and updates and removes incrementally', () => {
    const i = new Bm25Index()
    i.upsert(1, {
      fields: [analyze('Loss of View'), [], []],
      sequence: [],
      ids: ['T0829', 'attack-pattern--1'],
    })
    i.upsert(2, body('aa'))
    i.upsert(2, body('cc'))
    expect([...i.byId('t0829')]).toEqual([1])
    expect([...i.byId('ATTACK-PATTERN--1')]).toEqual([1])
    expect(i.search(['aa']).size).toBe(0)
    i.remove(1)
    expect(i.byId('t0829').size).toBe(0)
    expect(i.search(['view']).size).toBe(0)
    expect(i.size).toBe(1)
    expect(i.termCount).toBe(1)
    // single doc, df 1: idf ln(1 + 0.5/1.5); tf 1, len = avgdl -> factor 1
    expect(i.search(['cc']).get(2)).toBeCloseTo(Math.log(1 + 0.5 / 1.5), 12)
  })

  it('top: the best admitted documents by the same scores, ties by id, after removals too', () => {
    const big = new Bm25Index()
    for (let doc = 0; doc < 600; doc++)
      big.upsert(
        doc,
        body(`${'pump '.repeat(1 + (doc % 7))} valve ${doc % 3 === 0 ? 'alarm' : 'noise'} x${doc}`),
      )
    big.remove(5)
    const terms = ['pump', 'alarm']
    const all = [...big.search(terms)].sort((a, b) => b[1] - a[1] || a[0] - b[0])
    const odd = (doc: number) => doc % 2 === 1
    for (const limit of [1, 10, 100, 1000]) {
      const expected = all.filter(([doc]) => odd(doc)).slice(0, limit)
      expect(big.top(terms, limit, odd)).toEqual(expected.map(([doc, raw]) => ({ doc, raw })))
    }
    // Refusing nearly everything still finds the few admitted, from beyond the first 2 x limit.
    expect(big.top(terms, 3, (doc) => doc >= 597).map((h) => h.doc)).toEqual(
      all.filter(([doc]) => doc >= 597).map(([doc]) => doc),
    )
    expect(big.top(['absent'], 5, () => true)).toEqual([])
    expect(big.top(terms, 0, () => true)).toEqual([])
  })

  it('bestOf keeps the k best by score, ties by id, best first', () => {
    const scores = new Map([
      [4, 0.5],
      [2, 0.9],
      [7, 0.5],
      [1, 0.1],
      [3, 0.5],
    ])
    expect(bestOf(scores, 0)).toEqual([])
    expect(bestOf(scores, 1)).toEqual([2])
    expect(bestOf(scores, 3)).toEqual([2, 3, 4])
    expect(bestOf(scores, 5)).toEqual([2, 3, 4, 7, 1])
    expect(bestOf(scores, 6)).toEqual([2, 3, 4, 7, 1])
  })
})

describe('Bm25Index upkeep', () => {
  it('answers as an index built from scratch through upserts, re-upserts and removals', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'kappa', 'sigma', 'omega', 'zeta']
    let s = 5
    const rand = (n: number) => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0
      return s % n
    }
    const doc = () => {
      const text = Array.from({ length: 1 + rand(4) }, () => words[rand(words.length)]).join(' ')
      return { ...body(text), ids: rand(3) === 0 ? [`T${rand(5)}`] : [] }
    }
    const live = new Bm25Index()
    const current = new Map<number, ReturnType<typeof doc>>()
    for (let step = 0; step < 400; step++) {
      const id = rand(40)
      if (rand(4) === 0) {
        live.remove(id)
        current.delete(id)
      } else {
        const d = doc()
        live.upsert(id, d)
        current.set(id, d)
      }
    }
    const fresh = new Bm25Index()
    for (const [id, d] of current) fresh.upsert(id, d)
    expect(live.size).toBe(fresh.size)
    for (const w of words) {
      expect(live.documentFrequency(w)).toBe(fresh.documentFrequency(w))
      const a = live.search([w])
      const b = fresh.search([w])
      expect([...a.keys()].sort()).toEqual([...b.keys()].sort())
      for (const [k, v] of a) expect(v).toBeCloseTo(b.get(k) as number, 12)
    }
    for (let t = 0; t < 5; t++)
      expect([...live.byId(`t${t}`)].sort()).toEqual([...fresh.byId(`T${t}`)].sort())
  })
})
