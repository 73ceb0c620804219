import { grown } from '../graph/id-list.js'

/**
 * What removal and phrase evidence need of each document, off the JS object graph: its distinct term ids
 * (to find its postings on removal) followed by its content stems in order (term ids, for phrases), as one
 * block of a shared Int32Array pool, with per-document offsets in typed arrays indexed by document id (ids
 * are dense: one document per node). Re-indexing a document writes a new block at the end; the pool is
 * compacted when it would otherwise grow and at least a third of it is dead. The exact ids a document is
 * matched by stay strings (they are the id table's keys, shared).
 */
const NO_STRINGS: readonly string[] = Object.freeze([])

export class DocumentTerms {
  private pool = new Int32Array(4096)
  private used = 0
  private dead = 0
  private start = new Int32Array(1024)
  private termCount = new Int32Array(1024)
  /** Sequence length + 1; 0 when the document is absent. */
  private sequenceEnd = new Int32Array(1024)
  /** A lone id is kept as the string itself (the common case: a stix id), not an array around it. */
  private readonly ids: (string | readonly string[] | undefined)[] = []
  size = 0

  set(doc: number, terms: readonly number[], sequence: readonly number[], ids: readonly string[]): void {
    this.delete(doc)
    this.ensureDoc(doc)
    const n = terms.length + sequence.length
    this.reserve(n)
    const s = this.used
    for (let i = 0; i < terms.length; i++) this.pool[s + i] = terms[i] as number
    for (let i = 0; i < sequence.length; i++) this.pool[s + terms.length + i] = sequence[i] as number
    this.used += n
    this.start[doc] = s
    this.termCount[doc] = terms.length
    this.sequenceEnd[doc] = sequence.length + 1
    this.ids[doc] = ids.length === 0 ? undefined : ids.length === 1 ? ids[0] : ids
    this.size++
  }

  has(doc: number): boolean {
    return doc < this.sequenceEnd.length && this.sequenceEnd[doc] !== 0
  }

  /** The document's distinct term ids (a view: valid until the next write). */
  termsOf(doc: number): Int32Array | undefined {
    if (!this.has(doc)) return undefined
    const s = this.start[doc] as number
    return this.pool.subarray(s, s + (this.termCount[doc] as number))
  }

  idsOf(doc: number): readonly string[] {
    const ids = this.ids[doc]
    return ids === undefined ? NO_STRINGS : typeof ids === 'string' ? [ids] : ids
  }

  /** The document's content stems in order, as term ids (a view: valid until the next write). */
  sequence(doc: number): Int32Array | undefined {
    if (!this.has(doc)) return undefined
    const s = (this.start[doc] as number) + (this.termCount[doc] as number)
    return this.pool.subarray(s, s + (this.sequenceEnd[doc] as number) - 1)
  }

  delete(doc: number): void {
    if (!this.has(doc)) return
    this.dead += (this.termCount[doc] as number) + (this.sequenceEnd[doc] as number) - 1
    this.sequenceEnd[doc] = 0
    this.ids[doc] = undefined
    this.size--
  }

  *keys(): IterableIterator<number> {
    for (let doc = 0; doc < this.sequenceEnd.length; doc++) if (this.sequenceEnd[doc] !== 0) yield doc
  }

  private ensureDoc(doc: number): void {
    if (doc < this.start.length) return
    this.start = grown(this.start, doc + 1)
    this.termCount = grown(this.termCount, doc + 1)
    this.sequenceEnd = grown(this.sequenceEnd, doc + 1)
  }

  private reserve(slots: number): void {
    if (this.used + slots <= this.pool.length) return
    if (3 * this.dead >= this.used) this.compact()
    if (this.used + slots <= this.pool.length) return
    const pool = new Int32Array(Math.max(Math.ceil(1.5 * this.pool.length), this.used + slots))
    pool.set(this.pool.subarray(0, this.used))
    this.pool = pool
  }

  /** Drops dead space, the pool sized to what is live, once a quarter of it is slack (after bulk writes). */
  trim(): void {
    const live = this.used - this.dead
    if (4 * (this.pool.length - live) > this.pool.length) this.compact(Math.max(4096, live))
  }

  private compact(size = this.pool.length): void {
    const pool = new Int32Array(size)
    let w = 0
    for (let doc = 0; doc < this.sequenceEnd.length; doc++) {
      if (this.sequenceEnd[doc] === 0) continue
      const s = this.start[doc] as number
      const n = (this.termCount[doc] as number) + (this.sequenceEnd[doc] as number) - 1
      pool.set(this.pool.subarray(s, s + n), w)
      this.start[doc] = w
      w += n
    }
    this.pool = pool
    this.used = w
    this.dead = 0
  }
}
