/**
 * An incremental inverted index scored with Okapi BM25 exactly as FACTS §4 states it: k1 1.2, b 0.75,
 * idf ln(1 + (N - df + 0.5) / (df + 0.5)), N and avgdl over the indexed documents.
 */
export const BM25_K1 = 1.2
export const BM25_B = 0.75

export interface LexicalHit {
  /** Raw BM25 sum over the matched terms. */
  raw: number
  /** Objective terms this document contains, in objective order. */
  matched: string[]
}

export class Bm25Index {
  /** term -> (doc -> term frequency). */
  private readonly postings = new Map<string, Map<number, number>>()
  /** doc -> its distinct terms (to unindex without rescanning) and its length in tokens. */
  private readonly docs = new Map<number, { terms: string[]; length: number }>()
  private totalLength = 0
  /** doc -> length again, dense: the scoring loop of `top` reads it once per posting. */
  private lengths = new Float64Array(1024)

  get size(): number {
    return this.docs.size
  }

  get termCount(): number {
    return this.postings.size
  }

  /** Indexes (or re-indexes) a document from its tokens. */
  upsert(doc: number, tokens: readonly string[]): void {
    this.remove(doc)
    const tf = new Map<string, number>()
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1)
    for (const [term, count] of tf) {
      let posting = this.postings.get(term)
      if (posting === undefined) {
        posting = new Map()
        this.postings.set(term, posting)
      }
      posting.set(doc, count)
    }
    this.docs.set(doc, { terms: [...tf.keys()], length: tokens.length })
    this.totalLength += tokens.length
    if (doc >= this.lengths.length) this.lengths = grow(this.lengths, doc)
    this.lengths[doc] = tokens.length
  }

  remove(doc: number): void {
    const entry = this.docs.get(doc)
    if (entry === undefined) return
    for (const term of entry.terms) {
      const posting = this.postings.get(term)
      posting?.delete(doc)
      if (posting?.size === 0) this.postings.delete(term)
    }
    this.totalLength -= entry.length
    this.docs.delete(doc)
  }

  /** Documents containing `term`. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.size ?? 0
  }

  has(doc: number): boolean {
    return this.docs.has(doc)
  }

  docIds(): IterableIterator<number> {
    return this.docs.keys()
  }

  /** Per-document score scratch for `top`, indexed by doc id and zeroed again after each call. */
  private scratch = new Float64Array(1024)

  /**
   * The `limit` best documents for `terms` that `accept` admits, by raw BM25 (then doc id), without a
   * per-hit object: the path for callers that want a few documents out of a broad match (memory recall
   * never refuses a broad objective, so it cannot stop early as seed search's OVERBROAD rule does).
   */
  top(
    terms: readonly string[],
    limit: number,
    accept: (doc: number) => boolean,
  ): { doc: number; raw: number }[] {
    const n = this.docs.size
    if (n === 0 || limit <= 0) return []
    const avgdl = this.totalLength / n
    const touched: number[] = []
    for (const term of terms) {
      const posting = this.postings.get(term)
      if (posting === undefined) continue
      const df = posting.size
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      const k = idf * (BM25_K1 + 1)
      const lengths = this.lengths
      if (this.scratch.length < lengths.length) this.scratch = grow(this.scratch, lengths.length - 1)
      const scratch = this.scratch
      posting.forEach((tf, doc) => {
        const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * (lengths[doc] as number)) / avgdl)
        if (scratch[doc] === 0) touched.push(doc)
        scratch[doc] = (scratch[doc] as number) + (k * tf) / norm
      })
    }
    const scores = this.scratch
    try {
      // Only documents at or above the score of the (2 x limit)-th best can make the cut (slack for rejects).
      let pool = touched
      if (touched.length > limit * 4) {
        const sorted = Float64Array.from(touched, (d) => scores[d] as number).sort()
        const floor = sorted[sorted.length - Math.min(sorted.length, limit * 2)] as number
        pool = touched.filter((d) => (scores[d] as number) >= floor)
      }
      const order = (a: number, b: number) => (scores[b] as number) - (scores[a] as number) || a - b
      const out: { doc: number; raw: number }[] = []
      const take = (candidates: number[]) => {
        for (const doc of candidates.sort(order)) {
          if (out.length === limit) break
          if (accept(doc)) out.push({ doc, raw: scores[doc] as number })
        }
      }
      take(pool)
      if (out.length < limit && pool !== touched) {
        // Too many rejects in the first pool: the rest, in order (rare; correctness over speed).
        const tried = new Set(pool)
        const more = touched.filter((d) => !tried.has(d))
        take(more)
      }
      return out
    } finally {
      for (const doc of touched) scores[doc] = 0
    }
  }

  /** Documents containing at least one of `terms` (already de-duplicated), with their raw BM25. */
  search(terms: readonly string[]): Map<number, LexicalHit> {
    const hits = new Map<number, LexicalHit>()
    const n = this.docs.size
    if (n === 0) return hits
    const avgdl = this.totalLength / n
    for (const term of terms) {
      const posting = this.postings.get(term)
      if (posting === undefined) continue
      const df = posting.size
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      for (const [doc, tf] of posting) {
        // avgdl is 0 only when every document is empty, and then no posting exists.
        const length = this.docs.get(doc)?.length ?? 0
        const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl)
        const score = (idf * (tf * (BM25_K1 + 1))) / norm
        const hit = hits.get(doc)
        if (hit === undefined) hits.set(doc, { raw: score, matched: [term] })
        else {
          hit.raw += score
          hit.matched.push(term)
        }
      }
    }
    return hits
  }
}

/** FACTS §4: the lexical score squashes raw BM25 into [0, 1). */
export const lexicalScore = (raw: number): number => raw / (raw + 2)

/** A copy of `array` long enough to index `index`, at least doubled. */
function grow(array: Float64Array, index: number): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(Math.max(index + 1, array.length * 2))
  grown.set(array)
  return grown
}
