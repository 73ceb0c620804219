import { PAGE_IDS, PagedArray } from '../paged-array.js'

/**
 * What removal and phrase evidence need of each document, off the JS object graph: its distinct term ids
 * (to find its postings on removal) followed by its content stems in order (term ids, for phrases), as one
 * block of a shared byte pool, with per-document offsets in typed-array pages by document id (one document per
 * node; pages, since a workspace's node ids need not start near 0). The block is varints: the distinct ids sorted, as gaps, then the sequence.
 * Frequent words have small ids (they enter the vocabulary first), so a block is ~2 bytes a term where
 * Int32s took 4 (at 100k documents of a CTI import, 23 MB became ~10). Re-indexing a document writes a new
 * block at the end; the pool is compacted when it would otherwise grow and at least a third of it is dead.
 * The exact ids a document is matched by stay strings (they are the id table's keys, shared).
 */
const NO_STRINGS: readonly string[] = Object.freeze([])

/** Writes `value` (a non-negative int32) as a varint at `at`; returns the offset after it. */
function putVarint(pool: Uint8Array, at: number, value: number): number {
  let v = value >>> 0
  while (v >= 0x80) {
    pool[at++] = (v & 0x7f) | 0x80
    v >>>= 7
  }
  pool[at++] = v
  return at
}

/** The fields of a document's entry in `blocks`. */
const START = 0
const BYTES = 1
const TERMS = 2
const SEQUENCE_END = 3

/** Bytes a varint can take at most for an int32. */
const MAX_VARINT = 5

export class DocumentTerms {
  private pool = new Uint8Array(16384)
  private used = 0
  private dead = 0
  /** Per document: its block's start and bytes, its term count, and its sequence length + 1 (0: absent). */
  private readonly blocks = new PagedArray(Int32Array, 4)
  /** A lone id is kept as the string itself (the common case: a stix id), not an array around it. */
  private readonly ids: (string | readonly string[] | undefined)[] = []
  /** Decoded blocks are handed out in these (one for terms, one for sequences). */
  private termsOut = new Int32Array(64)
  private sequenceOut = new Int32Array(64)
  size = 0

  set(doc: number, terms: readonly number[], sequence: readonly number[], ids: readonly string[]): void {
    this.delete(doc)
    this.reserve(MAX_VARINT * (terms.length + sequence.length))
    const sorted = Int32Array.from(terms).sort()
    const s = this.used
    let at = s
    let previous = 0
    for (let i = 0; i < sorted.length; i++) {
      const term = sorted[i] as number
      at = putVarint(this.pool, at, term - previous)
      previous = term
    }
    for (let i = 0; i < sequence.length; i++) at = putVarint(this.pool, at, sequence[i] as number)
    this.used = at
    const page = this.blocks.pageFor(doc)
    const o = this.blocks.offset(doc)
    page[o + START] = s
    page[o + BYTES] = at - s
    page[o + TERMS] = terms.length
    page[o + SEQUENCE_END] = sequence.length + 1
    this.ids[doc] = ids.length === 0 ? undefined : ids.length === 1 ? ids[0] : ids
    this.size++
  }

  has(doc: number): boolean {
    return this.blocks.get(doc, SEQUENCE_END) !== 0
  }

  /** Decodes `count` varints from `at` into `out` (running sums of gaps when `gaps`). */
  private decode(at: number, count: number, out: Int32Array, gaps: boolean): void {
    const pool = this.pool
    let value = 0
    for (let i = 0; i < count; i++) {
      let v = 0
      let shift = 0
      let byte: number
      do {
        byte = pool[at++] as number
        v |= (byte & 0x7f) << shift
        shift += 7
      } while (byte & 0x80)
      value = gaps ? value + (v >>> 0) : v >>> 0
      out[i] = value
    }
  }

  /** The document's distinct term ids, ascending (valid until the next call). */
  termsOf(doc: number): Int32Array | undefined {
    if (!this.has(doc)) return undefined
    const n = this.blocks.get(doc, TERMS)
    if (n > this.termsOut.length) this.termsOut = new Int32Array(Math.max(n, 2 * this.termsOut.length))
    this.decode(this.blocks.get(doc, START), n, this.termsOut, true)
    return this.termsOut.subarray(0, n)
  }

  /** Whether `id` is one of the document's exact ids. */
  hasId(doc: number, id: string): boolean {
    const ids = this.ids[doc]
    return ids === id || (ids !== undefined && typeof ids !== 'string' && ids.includes(id))
  }

  idsOf(doc: number): readonly string[] {
    const ids = this.ids[doc]
    return ids === undefined ? NO_STRINGS : typeof ids === 'string' ? [ids] : ids
  }

  /** The document's content stems in order, as term ids (valid until the next call). */
  sequence(doc: number): Int32Array | undefined {
    if (!this.has(doc)) return undefined
    const n = this.blocks.get(doc, SEQUENCE_END) - 1
    if (n > this.sequenceOut.length)
      this.sequenceOut = new Int32Array(Math.max(n, 2 * this.sequenceOut.length))
    // Step over the terms' varints (each ends with a byte below 0x80) to the sequence.
    let at = this.blocks.get(doc, START)
    for (let left = this.blocks.get(doc, TERMS); left > 0; at++) if ((this.pool[at] as number) < 0x80) left--
    this.decode(at, n, this.sequenceOut, false)
    return this.sequenceOut.subarray(0, n)
  }

  delete(doc: number): void {
    if (!this.has(doc)) return
    this.dead += this.blocks.get(doc, BYTES)
    this.blocks.set(doc, 0, SEQUENCE_END)
    this.ids[doc] = undefined
    this.size--
  }

  *keys(): IterableIterator<number> {
    for (const first of this.blocks.pageStarts())
      for (let doc = first; doc < first + PAGE_IDS; doc++) if (this.has(doc)) yield doc
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.pool.length) return
    if (3 * this.dead >= this.used) this.compact()
    if (this.used + bytes <= this.pool.length) return
    const pool = new Uint8Array(Math.max(Math.ceil(1.5 * this.pool.length), this.used + bytes))
    pool.set(this.pool.subarray(0, this.used))
    this.pool = pool
  }

  /** Drops dead space, the pool sized to what is live, once a quarter of it is slack (after bulk writes). */
  trim(): void {
    const live = this.used - this.dead
    if (4 * (this.pool.length - live) > this.pool.length) this.compact(Math.max(16384, live))
  }

  private compact(size = this.pool.length): void {
    const pool = new Uint8Array(size)
    let w = 0
    for (const doc of this.keys()) {
      const s = this.blocks.get(doc, START)
      const n = this.blocks.get(doc, BYTES)
      pool.set(this.pool.subarray(s, s + n), w)
      this.blocks.set(doc, w, START)
      w += n
    }
    this.pool = pool
    this.used = w
    this.dead = 0
  }
}
