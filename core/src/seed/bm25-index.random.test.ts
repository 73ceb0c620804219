import { describe, expect, it } from 'vitest'
import { random } from '../testing/assistant-memory.js'
import { BM25_K1, Bm25Index, FIELD_B, FIELD_WEIGHT, FIELDS, type IndexedDocument } from './bm25-index.js'
import { nearestTerm } from './near-term.js'

/**
 * The compact index (typed-array postings with tombstones, pooled blocks that move and compact) against a
 * brute-force BM25F over the documents as last written, through random inserts, updates and removals.
 */

const WORDS = Array.from({ length: 60 }, (_, i) => `w${i.toString(36)}${'abcdefg'[i % 7]}`)
/** Per-field frequency caps of the packed layout; the context is exact. */
const CAPS = [1023, 1023, 511, Number.POSITIVE_INFINITY]

function randomDocument(rnd: () => number): IndexedDocument {
  const word = () => WORDS[Math.floor(rnd() * rnd() * WORDS.length)] as string
  const tokens = (max: number) => Array.from({ length: Math.floor(rnd() * max) }, word)
  const fields = [tokens(4), tokens(2), tokens(30), tokens(12)]
  // Now and then a flood: past the body cap, or past the context's 3-bit inline range.
  if (rnd() < 0.05)
    fields[2] = [...(fields[2] as string[]), ...Array(520 + Math.floor(rnd() * 20)).fill(word())]
  if (rnd() < 0.1) fields[3] = [...(fields[3] as string[]), ...Array(7 + Math.floor(rnd() * 40)).fill(word())]
  const ids = rnd() < 0.3 ? [`ID-${Math.floor(rnd() * 50)}`] : []
  return { fields, sequence: [...(fields[0] as string[]), ...(fields[2] as string[])], ids }
}

/** BM25F as bm25-index.ts documents it, computed from the documents themselves. */
class Oracle {
  readonly docs = new Map<number, IndexedDocument>()
  /** term -> documents, a Map in the order terms entered the vocabulary (what spelling correction reads). */
  readonly postings = new Map<string, Set<number>>()

  upsert(doc: number, d: IndexedDocument): void {
    this.remove(doc)
    this.docs.set(doc, d)
    for (const t of new Set(d.fields.flat())) {
      const docs = this.postings.get(t) ?? new Set()
      docs.add(doc)
      this.postings.set(t, docs)
    }
  }

  remove(doc: number): void {
    const d = this.docs.get(doc)
    if (d === undefined) return
    this.docs.delete(doc)
    for (const t of new Set(d.fields.flat())) {
      const docs = this.postings.get(t) as Set<number>
      docs.delete(doc)
      if (docs.size === 0) this.postings.delete(t)
    }
  }

  scores(terms: readonly string[]): Map<number, number> {
    const n = this.docs.size
    const avg = FIELDS.map(
      (_, f) => [...this.docs.values()].reduce((s, d) => s + (d.fields[f]?.length ?? 0), 0) / n,
    )
    const out = new Map<number, number>()
    for (const term of terms) {
      const df = this.postings.get(term)?.size ?? 0
      if (df === 0) continue
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      for (const [doc, d] of this.docs) {
        let weighted = 0
        FIELDS.forEach((_, f) => {
          const tokens = d.fields[f] ?? []
          const tf = Math.min(CAPS[f] as number, tokens.filter((t) => t === term).length)
          const b = FIELD_B[f] as number
          if (tf > 0)
            weighted +=
              ((FIELD_WEIGHT[f] as number) * tf) / (1 - b + (b * tokens.length) / (avg[f] as number))
        })
        if (weighted > 0)
          out.set(doc, (out.get(doc) ?? 0) + (idf * weighted * (BM25_K1 + 1)) / (weighted + BM25_K1))
      }
    }
    return out
  }
}

describe('Bm25Index against brute-force BM25F', () => {
  it('agrees on every score, frequency, sequence, id and correction through random writes', () => {
    for (const seed of [1, 2, 3]) {
      const rnd = random(seed)
      const index = new Bm25Index()
      const oracle = new Oracle()
      for (let step = 0; step < 1500; step++) {
        // Mostly a small set (many updates); now and then a far id (the per-document tables grow).
        const doc = rnd() < 0.05 ? 1000 + Math.floor(rnd() * 3000) : Math.floor(rnd() * 150)
        if (rnd() < 0.25) {
          index.remove(doc)
          oracle.remove(doc)
        } else {
          const d = randomDocument(rnd)
          index.upsert(doc, d)
          oracle.upsert(doc, d)
        }
        if (step % 97 === 0) index.trim() // as the seed index does once it has caught up
        if (step % 50 !== 49) continue
        expect(index.size).toBe(oracle.docs.size)
        expect(index.termCount).toBe(oracle.postings.size)
        expect([...index.docIds()].sort((a, b) => a - b)).toEqual(
          [...oracle.docs.keys()].sort((a, b) => a - b),
        )
        for (let q = 0; q < 5; q++) {
          const terms = [
            ...new Set(
              Array.from(
                { length: 1 + Math.floor(rnd() * 4) },
                () => WORDS[Math.floor(rnd() * WORDS.length)] as string,
              ),
            ),
          ]
          const got = index.search(terms)
          const want = oracle.scores(terms)
          expect([...got.keys()].sort((a, b) => a - b)).toEqual([...want.keys()].sort((a, b) => a - b))
          for (const [d, s] of want) {
            expect(got.get(d)).toBeCloseTo(s, 10)
            expect(index.explain(d, terms).raw).toBeCloseTo(s, 10)
          }
          for (const t of terms) expect(index.documentFrequency(t)).toBe(oracle.postings.get(t)?.size ?? 0)
        }
        for (const [d, written] of oracle.docs) {
          const seq = index.sequence(d) as ArrayLike<number>
          expect(Array.from(seq)).toEqual(written.sequence.map((t) => index.termNumber(t)))
          for (const id of written.ids) expect(index.byId(id.toLowerCase()).has(d)).toBe(true)
        }
        // A misspelling of a random word: the same correction as a scan of the Map-ordered postings.
        const w = WORDS[Math.floor(rnd() * WORDS.length)] as string
        const typo = `${w.slice(0, 2)}x${w.slice(2)}`
        expect(index.nearTerm(typo)).toBe(nearestTerm(oracle.postings, typo))
      }
    }
  })
})

describe('Bm25Index spelling correction ties', () => {
  it('breaks a tie by the order terms last entered the vocabulary, as the Map of postings did', () => {
    const index = new Bm25Index()
    const oracle = new Oracle()
    const write = (doc: number, word: string) => {
      const d = { fields: [[], [], [word]], sequence: [word], ids: [] }
      index.upsert(doc, d)
      oracle.upsert(doc, d)
    }
    write(1, 'cat')
    write(2, 'cut')
    expect(index.nearTerm('cxt')).toBe('cat')
    // 'cat' leaves the vocabulary and comes back: now it is the later of the two.
    index.remove(1)
    oracle.remove(1)
    write(3, 'cat')
    expect(index.nearTerm('cbt')).toBe(nearestTerm(oracle.postings, 'cbt'))
    expect(index.nearTerm('cbt')).toBe('cut')
  })
})
