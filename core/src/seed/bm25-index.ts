import { HashedIds, hashString } from '../hashed-ids.js'
import { PagedArray } from '../paged-array.js'
import { DocumentTerms } from './document-terms.js'
import { nearestTerm } from './near-term.js'
import { LOW_MASK, PostingLists } from './posting-lists.js'
import { TermDictionary } from './term-dictionary.js'

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

export const FIELDS = ['name', 'labels', 'body', 'context'] as const
export type Field = (typeof FIELDS)[number]

/**
 * Field weights and length normalisation. A name or alias says what a node is; a label says its kind;
 * a long description mentions many things in passing; the context (what the node's relationships say of it,
 * node-text.ts) tells how it is used, second hand. Chosen on the ATT&CK judged set (docs/seed-search.md).
 */
export const FIELD_WEIGHT: readonly number[] = [3, 0.5, 1, 0.4]
export const FIELD_B: readonly number[] = [0.5, 0, 0.75, 0.75]

/**
 * Term frequencies of the four fields packed in one integer-valued number: name, labels and body in 10 bits
 * each (body capped at 511, so the low 30 bits stay clear of the sign bit), the context above 2^30 (exact
 * up to 2^53; read by division, since bit operators see 32 bits).
 */
const CAP = 1023
const CONTEXT_UNIT = 1073741824
const FIELD_UNIT = [1, 1024, 1048576, CONTEXT_UNIT]
const unpack = (v: number, f: number) =>
  f === 0 ? v & 1023 : f === 1 ? (v >> 10) & 1023 : f === 2 ? (v >> 20) & 511 : Math.floor(v / CONTEXT_UNIT)
const FIELD_COUNT = FIELDS.length

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
  /** Content stems in order (name, body, then context), for phrase evidence. */
  sequence: readonly string[]
  /** Identifiers matched whole (case-insensitive). */
  ids: readonly string[]
}

const NO_NUMBERS: readonly number[] = Object.freeze([])
const NO_STRINGS: readonly string[] = Object.freeze([])

/**
 * Each document's length per field, 16 bits each, in pages by node id (searching reads them per posting: an
 * array load beats a Map). A field of 65,535 tokens or more (a long memory) keeps its exact length aside,
 * since removal subtracts it from the totals.
 */
class FieldLengths {
  private static readonly ASIDE = 0xffff
  readonly data = new PagedArray(Uint16Array, FIELD_COUNT)
  private readonly aside = new Map<number, number>()

  set(doc: number, lengths: readonly number[]): void {
    const page = this.data.pageFor(doc)
    const base = this.data.offset(doc)
    for (let f = 0; f < FIELD_COUNT; f++) {
      const at = FIELD_COUNT * doc + f
      const length = lengths[f] ?? 0
      if (length >= FieldLengths.ASIDE) this.aside.set(at, length)
      else this.aside.delete(at)
      page[base + f] = Math.min(length, FieldLengths.ASIDE)
    }
  }

  get(doc: number, field: number): number {
    const length = this.data.get(doc, field)
    return length === FieldLengths.ASIDE ? (this.aside.get(FIELD_COUNT * doc + field) as number) : length
  }
}

export class Bm25Index {
  /** term id -> doc -> field frequencies (posting-lists.ts). */
  private readonly postings = new PostingLists()
  private readonly terms = new TermDictionary((id) => this.postings.count(id))
  private readonly docs = new DocumentTerms()
  private readonly totals = FIELDS.map(() => 0)
  /** Exact id (lower case) -> its documents; the documents hold the ids (DocumentTerms). */
  private readonly idTable = new HashedIds<string>(hashString, (doc, id) => this.docs.hasId(doc, id))
  private readonly lengths = new FieldLengths()

  get size(): number {
    return this.docs.size
  }

  get termCount(): number {
    return this.terms.live
  }

  /** Indexes (or re-indexes) a document. */
  upsert(doc: number, d: IndexedDocument): void {
    this.remove(doc)
    // Field frequencies packed as they are counted (one number per distinct term; see FIELD_UNIT).
    const tf = new Map<string, number>()
    d.fields.forEach((tokens, f) => {
      const unit = FIELD_UNIT[f] as number
      const cap = f === 2 ? 511 : CAP
      for (const t of tokens) {
        const v = tf.get(t) ?? 0
        tf.set(t, unpack(v, f) < cap ? v + unit : v)
      }
    })
    const termIds: number[] = []
    for (const [term, packed] of tf) {
      const id = this.terms.id(term)
      termIds.push(id)
      if (this.postings.count(id) === 0) this.terms.entered(id)
      this.postings.set(id, doc, packed & LOW_MASK, Math.floor(packed / CONTEXT_UNIT))
    }
    const lengths = FIELDS.map((_, f) => d.fields[f]?.length ?? 0)
    lengths.forEach((len, f) => {
      this.totals[f] = (this.totals[f] ?? 0) + len
    })
    const ids = d.ids.length === 0 ? NO_STRINGS : [...new Set(d.ids.map((i) => i.toLowerCase()))]
    for (const id of ids) this.idTable.add(id, doc)
    this.lengths.set(doc, lengths)
    const sequence = d.sequence.length === 0 ? NO_NUMBERS : d.sequence.map((t) => this.termNumber(t))
    this.docs.set(doc, termIds, sequence, ids)
  }

  remove(doc: number): void {
    const terms = this.docs.termsOf(doc)
    if (terms === undefined) return
    for (const term of terms) if (this.postings.delete(term, doc)) this.terms.left()
    for (const id of this.docs.idsOf(doc)) this.idTable.remove(id, doc)
    for (let f = 0; f < FIELDS.length; f++) this.totals[f] = (this.totals[f] ?? 0) - this.lengths.get(doc, f)
    this.docs.delete(doc)
  }

  /**
   * Gives back the slack bulk writes leave (pools grown ahead, blocks moved as they doubled) once it is a
   * quarter of the pools; the caller's hint that a run of writes is over.
   */
  trim(): void {
    this.postings.trim()
    this.docs.trim()
  }

  /** A stable number per distinct stem (numbers are never reused; the table only grows). */
  termNumber(term: string): number {
    return this.terms.id(term)
  }

  /**
   * The indexed term nearest to a term the index lacks: one edit away (insertion, deletion, substitution or
   * a swap of neighbours), the most frequent of those; else the term sharing the most trigrams with it (at
   * least TRIGRAM_MIN of their union, same first letter). Null when none is near. A scan of the vocabulary, only
   * for the few objective terms no document has, remembered until the vocabulary changes.
   */
  nearTerm(term: string): string | null {
    // The vocabulary changes with writes; a misspelling recurs across recalls: remembered until it grows.
    if (this.nearTerms.vocabulary !== this.terms.live)
      this.nearTerms = { vocabulary: this.terms.live, terms: new Map() }
    const known = this.nearTerms.terms.get(term)
    if (known !== undefined) return known
    const near = this.findNearTerm(term)
    if (this.nearTerms.terms.size < 4096) this.nearTerms.terms.set(term, near)
    return near
  }

  private nearTerms = { vocabulary: -1, terms: new Map<string, string | null>() }

  private findNearTerm(term: string): string | null {
    return nearestTerm(this.terms, term)
  }

  /** Documents containing `term` in any field. */
  documentFrequency(term: string): number {
    const id = this.terms.lookup(term)
    return id === undefined ? 0 : this.postings.count(id)
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

  /** Content stems of a document in order, as term numbers (a view, valid until the next write). */
  sequence(doc: number): ArrayLike<number> | undefined {
    return this.docs.sequence(doc)
  }

  /** Documents whose stix id or external id equals `id` (case-insensitive). */
  byId(id: string): ReadonlySet<number> {
    const docs = this.idTable.get(id.toLowerCase())
    return docs === undefined ? EMPTY : new Set(docs.length > 1 ? docs.sort((a, b) => a - b) : docs)
  }

  /**
   * Documents containing at least one of `terms` (already de-duplicated), with their BM25F sum. Only the
   * sum: at 100k nodes a common term has tens of thousands of postings, and `explain` gives the parts for
   * the few documents a caller shows. `boosters` (common terms) only add to documents another term
   * matched: a term in most documents adds almost nothing (idf near 0) and would cost a full posting walk.
   */
  search(terms: readonly string[], boosters: ReadonlySet<string> = NONE): Map<number, number> {
    const scores = new Map<number, number>()
    const n = this.docs.size
    if (n === 0) return scores
    const avg = this.totals.map((t) => t / n)
    const lengths = this.lengths.data
    const [w0, w1, w2, w3] = FIELD_WEIGHT as [number, number, number, number]
    const [b0, b1, b2, b3] = FIELD_B as [number, number, number, number]
    const [a0 = 1, a1 = 1, a2 = 1, a3 = 1] = avg
    const score = (doc: number, low: number, t3: number, idf: number) => {
      // A posting's document was indexed, so its page exists.
      const page = lengths.pageOf(doc) as Uint16Array
      const base = lengths.offset(doc)
      // A field with tf > 0 has length > 0, so its average is > 0.
      const t0 = low & 1023
      const t1 = (low >> 10) & 1023
      const t2 = (low >> 20) & 511
      const weighted =
        (t0 === 0 ? 0 : (w0 * t0) / (1 - b0 + (b0 * (page[base] as number)) / a0)) +
        (t1 === 0 ? 0 : (w1 * t1) / (1 - b1 + (b1 * (page[base + 1] as number)) / a1)) +
        (t2 === 0 ? 0 : (w2 * t2) / (1 - b2 + (b2 * (page[base + 2] as number)) / a2)) +
        (t3 === 0 ? 0 : (w3 * t3) / (1 - b3 + (b3 * (page[base + 3] as number)) / a3))
      scores.set(doc, (scores.get(doc) ?? 0) + (idf * (weighted * (BM25_K1 + 1))) / (weighted + BM25_K1))
    }
    for (const term of terms) {
      const id = this.terms.lookup(term)
      if (id === undefined || this.postings.count(id) === 0 || boosters.has(term)) continue
      const idf = this.idf(term)
      this.postings.forEach(id, (doc, low, context) => score(doc, low, context, idf))
    }
    for (const term of terms) {
      const id = this.terms.lookup(term)
      if (id === undefined || this.postings.count(id) === 0 || !boosters.has(term)) continue
      const idf = this.idf(term)
      for (const doc of scores.keys()) {
        const posting = this.postings.get(id, doc)
        if (posting !== undefined) score(doc, posting.low, posting.context, idf)
      }
    }
    return scores
  }

  /**
   * The `limit` best documents for `terms` that `accept` admits, by BM25F (then doc id): for callers that
   * want a few documents out of a broad match and apply no 422 rules (memory recall). `accept` is asked
   * about the best 2 x limit first, and about the rest only when too many of those are refused.
   */
  top(
    terms: readonly string[],
    limit: number,
    accept: (doc: number) => boolean,
  ): { doc: number; raw: number }[] {
    if (limit <= 0) return []
    const scores = this.search(terms)
    const first = bestOf(scores, 2 * limit)
    let chosen = first.filter(accept).slice(0, limit)
    if (chosen.length < limit && first.length < scores.size) {
      for (const doc of scores.keys()) if (!accept(doc)) scores.delete(doc)
      chosen = bestOf(scores, limit)
    }
    return chosen.map((doc) => ({ doc, raw: scores.get(doc) as number }))
  }

  /** One document's BM25F for `terms`, split by field, with the terms it contains (objective order). */
  explain(doc: number, terms: readonly string[]): LexicalHit {
    const hit: LexicalHit = { raw: 0, fields: FIELDS.map(() => 0), matched: [] }
    const n = this.docs.size
    if (!this.docs.has(doc)) return hit
    const lengths = FIELDS.map((_, f) => this.lengths.get(doc, f))
    const share = FIELDS.map(() => 0)
    const avg = this.totals.map((t) => t / n)
    for (const term of terms) {
      const id = this.terms.lookup(term)
      const posting = id === undefined ? undefined : this.postings.get(id, doc)
      if (posting === undefined) continue
      let weighted = 0
      for (let f = 0; f < FIELD_COUNT; f++) {
        const tf = f === 3 ? posting.context : unpack(posting.low, f)
        const b = FIELD_B[f] as number
        share[f] =
          tf === 0
            ? 0
            : ((FIELD_WEIGHT[f] as number) * tf) / (1 - b + (b * (lengths[f] as number)) / (avg[f] as number))
        weighted += share[f] as number
      }
      const score = (this.idf(term) * (weighted * (BM25_K1 + 1))) / (weighted + BM25_K1)
      hit.raw += score
      for (let f = 0; f < FIELD_COUNT; f++)
        hit.fields[f] = (hit.fields[f] ?? 0) + (score * (share[f] as number)) / weighted
      hit.matched.push(term)
    }
    return hit
  }
}

const EMPTY: ReadonlySet<number> = new Set()
const NONE: ReadonlySet<string> = new Set()

/**
 * The raw score that maps to lexical 0.5. FACTS squashes raw BM25 with raw / (raw + 2); BM25F's weighted
 * name field gives larger raw scores, and at 2 the squash flattens the top of the ranking so much that the
 * degree signal reorders it (ATT&CK hybrid nDCG@10: 2 -> 0.680, 6 -> 0.709, 8 -> 0.710, 12 -> 0.710).
 */
export const LEXICAL_HALF = 8

/** Squashes raw lexical points into [0, 1) (FACTS' shape, with LEXICAL_HALF for its constant). */
export const lexicalScore = (raw: number): number => raw / (raw + LEXICAL_HALF)

/** The `k` best documents by score (ties by id), without sorting every hit: a bounded min-heap. */
export function bestOf(scores: ReadonlyMap<number, number>, k: number): number[] {
  const heap: [number, number][] = [] // [score, id], worst at the root
  const worse = (a: [number, number], b: [number, number]) => a[0] < b[0] || (a[0] === b[0] && a[1] > b[1])
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < heap.length && worse(heap[l] as [number, number], heap[m] as [number, number])) m = l
      if (r < heap.length && worse(heap[r] as [number, number], heap[m] as [number, number])) m = r
      if (m === i) return
      ;[heap[i], heap[m]] = [heap[m] as [number, number], heap[i] as [number, number]]
      i = m
    }
  }
  for (const [id, score] of scores) {
    const e: [number, number] = [score, id]
    if (heap.length < k) {
      heap.push(e)
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1
        if (!worse(heap[i] as [number, number], heap[p] as [number, number])) break
        ;[heap[i], heap[p]] = [heap[p] as [number, number], heap[i] as [number, number]]
        i = p
      }
    } else if (k > 0 && worse(heap[0] as [number, number], e)) {
      heap[0] = e
      down(0)
    }
  }
  return heap.sort((a, b) => b[0] - a[0] || a[1] - b[1]).map((e) => e[1])
}
