/**
 * An incremental, field-aware inverted index scored with BM25F: each field's term frequency is
 * length-normalised against that field's average, weighted, summed, then saturated once per term
 * (k1 1.2) and multiplied by FACTS' idf ln(1 + (N - df + 0.5) / (df + 0.5)) over whole documents.
 * With one field of weight 1 and b 0.75 this is exactly FACTS §4's BM25.
 *
 * Besides postings it keeps, per document, its content stems in order (as term numbers) for phrase and
 * proximity evidence, and an exact-id table (stix ids, ATT&CK external ids) matched whole.
 */
export const BM25_K1 = 1.2

export const FIELDS = ['name', 'labels', 'body'] as const
export type Field = (typeof FIELDS)[number]

/**
 * Field weights and length normalisation. A name or alias says what a node is; a label says its kind;
 * a long description mentions many things in passing. Chosen on the ATT&CK judged set (docs/seed-search.md).
 */
export const FIELD_WEIGHT: readonly number[] = [3, 0.5, 1]
export const FIELD_B: readonly number[] = [0.5, 0, 0.75]

/** Term frequencies of the three fields packed in one small integer (10 bits each, capped). */
const CAP = 1023
const pack = (n: number, l: number, b: number) =>
  Math.min(n, CAP) + Math.min(l, CAP) * 1024 + Math.min(b, 511) * 1048576
const unpack = (v: number, f: number) => (f === 0 ? v & 1023 : f === 1 ? (v >> 10) & 1023 : v >> 20)

export interface LexicalHit {
  /** BM25F sum over the matched terms. */
  raw: number
  /** `raw` split by field (each term's share in proportion to its weighted field frequencies). */
  fields: number[]
  /** Objective terms this document contains, in objective order. */
  matched: string[]
}

export interface IndexedDocument {
  /** Stemmed tokens per field, in FIELDS order. */
  fields: readonly (readonly string[])[]
  /** Content stems in order (name, then body), for phrase evidence. */
  sequence: readonly string[]
  /** Identifiers matched whole (case-insensitive). */
  ids: readonly string[]
}

interface DocEntry {
  terms: string[]
  lengths: number[]
  sequence: Int32Array
  ids: string[]
}

export class Bm25Index {
  /** term -> (doc -> packed field frequencies). */
  private readonly postings = new Map<string, Map<number, number>>()
  private readonly docs = new Map<number, DocEntry>()
  private readonly totals = [0, 0, 0]
  private readonly termNumbers = new Map<string, number>()
  private readonly idTable = new Map<string, Set<number>>()

  get size(): number {
    return this.docs.size
  }

  get termCount(): number {
    return this.postings.size
  }

  /** Indexes (or re-indexes) a document. */
  upsert(doc: number, d: IndexedDocument): void {
    this.remove(doc)
    const tf = new Map<string, number[]>()
    d.fields.forEach((tokens, f) => {
      for (const t of tokens) {
        let counts = tf.get(t)
        if (counts === undefined) tf.set(t, (counts = [0, 0, 0]))
        counts[f] = (counts[f] ?? 0) + 1
      }
    })
    for (const [term, [n = 0, l = 0, b = 0]] of tf) {
      let posting = this.postings.get(term)
      if (posting === undefined) this.postings.set(term, (posting = new Map()))
      posting.set(doc, pack(n, l, b))
    }
    const lengths = FIELDS.map((_, f) => d.fields[f]?.length ?? 0)
    lengths.forEach((len, f) => {
      this.totals[f] = (this.totals[f] ?? 0) + len
    })
    const ids = [...new Set(d.ids.map((i) => i.toLowerCase()))]
    for (const id of ids) {
      let docs = this.idTable.get(id)
      if (docs === undefined) this.idTable.set(id, (docs = new Set()))
      docs.add(doc)
    }
    const sequence = Int32Array.from(d.sequence, (t) => this.termNumber(t))
    this.docs.set(doc, { terms: [...tf.keys()], lengths, sequence, ids })
  }

  remove(doc: number): void {
    const entry = this.docs.get(doc)
    if (entry === undefined) return
    for (const term of entry.terms) {
      const posting = this.postings.get(term)
      posting?.delete(doc)
      if (posting?.size === 0) this.postings.delete(term)
    }
    for (const id of entry.ids) {
      const docs = this.idTable.get(id)
      docs?.delete(doc)
      if (docs?.size === 0) this.idTable.delete(id)
    }
    entry.lengths.forEach((len, f) => {
      this.totals[f] = (this.totals[f] ?? 0) - len
    })
    this.docs.delete(doc)
  }

  /** A stable number per distinct stem (numbers are never reused; the table only grows). */
  termNumber(term: string): number {
    let n = this.termNumbers.get(term)
    if (n === undefined) this.termNumbers.set(term, (n = this.termNumbers.size))
    return n
  }

  /** Documents containing `term` in any field. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.size ?? 0
  }

  /** FACTS idf of a term (0 when no document has it). */
  idf(term: string): number {
    const df = this.documentFrequency(term)
    return df === 0 ? 0 : Math.log(1 + (this.docs.size - df + 0.5) / (df + 0.5))
  }

  has(doc: number): boolean {
    return this.docs.has(doc)
  }

  docIds(): IterableIterator<number> {
    return this.docs.keys()
  }

  /** Content stems of a document in order, as term numbers (-1 never occurs). */
  sequence(doc: number): Int32Array | undefined {
    return this.docs.get(doc)?.sequence
  }

  /** Documents whose stix id or external id equals `id` (case-insensitive). */
  byId(id: string): ReadonlySet<number> {
    return this.idTable.get(id.toLowerCase()) ?? EMPTY
  }

  /** Documents containing at least one of `terms` (already de-duplicated), with their BM25F. */
  search(terms: readonly string[]): Map<number, LexicalHit> {
    const hits = new Map<number, LexicalHit>()
    const n = this.docs.size
    if (n === 0) return hits
    const avg = this.totals.map((t) => t / n)
    const share = [0, 0, 0]
    for (const term of terms) {
      const posting = this.postings.get(term)
      if (posting === undefined) continue
      const idf = this.idf(term)
      for (const [doc, packed] of posting) {
        const lengths = this.docs.get(doc)?.lengths ?? [0, 0, 0]
        let weighted = 0
        for (let f = 0; f < 3; f++) {
          const tf = unpack(packed, f)
          const b = FIELD_B[f] as number
          // A field with tf > 0 has length > 0, so its average is > 0.
          share[f] =
            tf === 0
              ? 0
              : ((FIELD_WEIGHT[f] as number) * tf) /
                (1 - b + (b * (lengths[f] as number)) / (avg[f] as number))
          weighted += share[f] as number
        }
        const score = (idf * (weighted * (BM25_K1 + 1))) / (weighted + BM25_K1)
        let hit = hits.get(doc)
        if (hit === undefined) hits.set(doc, (hit = { raw: 0, fields: [0, 0, 0], matched: [] }))
        hit.raw += score
        for (let f = 0; f < 3; f++) hit.fields[f] = (hit.fields[f] ?? 0) + (score * (share[f] as number)) / weighted
        hit.matched.push(term)
      }
    }
    return hits
  }
}

const EMPTY: ReadonlySet<number> = new Set()

/**
 * The raw score that maps to lexical 0.5. FACTS squashes raw BM25 with raw / (raw + 2); BM25F's weighted
 * name field gives larger raw scores, and at 2 the squash flattens the top of the ranking so much that the
 * degree signal reorders it (ATT&CK hybrid nDCG@10: 2 -> 0.680, 6 -> 0.709, 8 -> 0.710, 12 -> 0.710).
 */
export const LEXICAL_HALF = 8

/** Squashes raw lexical points into [0, 1) (FACTS' shape, with LEXICAL_HALF for its constant). */
export const lexicalScore = (raw: number): number => raw / (raw + LEXICAL_HALF)
