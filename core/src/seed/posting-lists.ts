import { grown } from '../graph/id-list.js'

/**
 * Postings of every term in two shared typed-array pools instead of a Map per term: a term's postings are
 * one block of the pools (doc ids ascending, so a document is found by binary search), described by
 * per-term offsets in typed arrays indexed by term id. A block that fills up moves to the end of the pools
 * at twice its capacity; the space it leaves is reclaimed when the pools are compacted (when they would
 * otherwise grow and at least a third of them is dead). A removed posting is a tombstone (frequency 0) that
 * the same document reuses when re-indexed; a term's block is squeezed once tombstones outnumber postings.
 *
 * A posting's field frequencies are one 32-bit word: name, labels and body in the low 29 bits (bm25-index.ts's
 * layout) and the context in the top 3, where 7 means "7 or more: exact value in `overflow`" (a node with many
 * relationships can have thousands of context mentions of a term). The pools keep it in 16 bits (name < 16,
 * labels < 4, body < 128, the context's 3 bits: nearly every posting), so a posting is 6 bytes; a word that
 * does not fit is kept whole in `wide` and its slot says WIDE.
 */

/** The low 29 bits: name (10), labels (10), body (9) term frequencies. */
export const LOW_MASK = 0x1fffffff
const CONTEXT_SHIFT = 29
const CONTEXT_ESCAPE = 7

/** The slot of a posting whose word is in `wide`. */
const WIDE = 0xffff

/** The 16-bit form of a word, or WIDE when a field does not fit. */
function narrow(word: number): number {
  const name = word & 1023
  const labels = (word >>> 10) & 1023
  const body = (word >>> 20) & 511
  if (name > 15 || labels > 3 || body > 127) return WIDE
  const code = name | (labels << 4) | (body << 6) | ((word >>> CONTEXT_SHIFT) << 13)
  return code === WIDE ? WIDE : code
}

/** The word of a 16-bit form (not WIDE). */
const expand = (code: number): number =>
  ((code & 15) |
    (((code >>> 4) & 3) << 10) |
    (((code >>> 6) & 127) << 20) |
    ((code >>> 13) << CONTEXT_SHIFT)) >>>
  0

/** Called per live posting: the document, its low frequencies and its context frequency. */
export type PostingVisit = (doc: number, low: number, context: number) => void

export class PostingLists {
  private docs = new Int32Array(1024)
  /** Each posting's word in 16 bits (see `narrow`); 0 is a tombstone. */
  private freqs = new Uint16Array(1024)
  /** Pool slots handed out (live blocks and dead space). */
  private used = 0
  /** Pool slots in abandoned blocks. */
  private dead = 0
  private start = new Int32Array(256)
  private length = new Int32Array(256)
  private capacity = new Int32Array(256)
  private live = new Int32Array(256)
  /** Live postings of all terms. */
  private total = 0
  /** term -> doc -> context frequency, for context frequencies of CONTEXT_ESCAPE or more. */
  private readonly overflow = new Map<number, Map<number, number>>()
  /** term -> doc -> word, for the postings whose slot says WIDE. */
  private readonly wide = new Map<number, Map<number, number>>()

  /** Documents with the term (0 for a term never seen). */
  count(term: number): number {
    return term < this.live.length ? (this.live[term] as number) : 0
  }

  /** Sets (adds or replaces) a document's frequencies for a term. `low` or `context` is non-zero. */
  set(term: number, doc: number, low: number, context: number): void {
    this.ensureTerm(term)
    const word = (low | (Math.min(context, CONTEXT_ESCAPE) << CONTEXT_SHIFT)) >>> 0
    const overflow = this.overflow.get(term)
    if (context >= CONTEXT_ESCAPE) {
      if (overflow === undefined) this.overflow.set(term, new Map([[doc, context]]))
      else overflow.set(doc, context)
    } else if (overflow?.delete(doc) && overflow.size === 0) this.overflow.delete(term)
    const code = this.slotOf(term, doc, word)
    const at = this.find(term, doc)
    const s = this.start[term] as number
    const n = this.length[term] as number
    if (at < n && this.docs[s + at] === doc) {
      if (this.freqs[s + at] === 0) {
        ;(this.live[term] as number)++
        this.total++
      }
      this.freqs[s + at] = code
      return
    }
    let at2 = at
    if (n === this.capacity[term]) {
      this.move(term, Math.max(1, 2 * n))
      at2 = this.find(term, doc) // a compaction on the way may have dropped tombstones
    }
    const b = this.start[term] as number
    const len = this.length[term] as number
    this.docs.copyWithin(b + at2 + 1, b + at2, b + len)
    this.freqs.copyWithin(b + at2 + 1, b + at2, b + len)
    this.docs[b + at2] = doc
    this.freqs[b + at2] = code
    this.length[term] = len + 1
    ;(this.live[term] as number)++
    this.total++
  }

  /** Removes a document's posting for a term; returns whether the term is now in no document. */
  delete(term: number, doc: number): boolean {
    if (term >= this.live.length) return true
    const at = this.find(term, doc)
    const s = this.start[term] as number
    const n = this.length[term] as number
    if (at >= n || this.docs[s + at] !== doc || this.freqs[s + at] === 0) return this.live[term] === 0
    this.freqs[s + at] = 0
    const overflow = this.overflow.get(term)
    if (overflow?.delete(doc) && overflow.size === 0) this.overflow.delete(term)
    this.dropWide(term, doc)
    this.total--
    const left = --(this.live[term] as number)
    if (left === 0) this.length[term] = 0
    else if (n - left > left && n > 8) this.squeeze(term)
    return left === 0
  }

  /** A document's frequencies for a term, or undefined when it lacks the term. */
  get(term: number, doc: number): { low: number; context: number } | undefined {
    if (term >= this.live.length) return undefined
    const at = this.find(term, doc)
    const s = this.start[term] as number
    if (at >= (this.length[term] as number) || this.docs[s + at] !== doc) return undefined
    const code = this.freqs[s + at] as number
    if (code === 0) return undefined
    const word = this.wordOf(term, doc, code)
    return { low: word & LOW_MASK, context: this.contextOf(term, doc, word) }
  }

  /** Visits the term's live postings in document order. */
  forEach(term: number, visit: PostingVisit): void {
    if (term >= this.live.length) return
    const s = this.start[term] as number
    const end = s + (this.length[term] as number)
    const docs = this.docs
    const freqs = this.freqs
    for (let i = s; i < end; i++) {
      const code = freqs[i] as number
      if (code === 0) continue
      const doc = docs[i] as number
      const word = code === WIDE ? this.wordOf(term, doc, code) : expand(code)
      visit(
        doc,
        word & LOW_MASK,
        word >>> CONTEXT_SHIFT === CONTEXT_ESCAPE ? this.contextOf(term, doc, word) : word >>> CONTEXT_SHIFT,
      )
    }
  }

  /** The 16-bit slot for `word`, keeping it in `wide` when it does not fit (and dropping a stale entry). */
  private slotOf(term: number, doc: number, word: number): number {
    const code = narrow(word)
    if (code !== WIDE) {
      this.dropWide(term, doc)
      return code
    }
    const docs = this.wide.get(term)
    if (docs === undefined) this.wide.set(term, new Map([[doc, word]]))
    else docs.set(doc, word)
    return WIDE
  }

  private wordOf(term: number, doc: number, code: number): number {
    return code === WIDE ? (this.wide.get(term)?.get(doc) as number) : expand(code)
  }

  private dropWide(term: number, doc: number): void {
    const docs = this.wide.get(term)
    if (docs?.delete(doc) && docs.size === 0) this.wide.delete(term)
  }

  private contextOf(term: number, doc: number, word: number): number {
    const c = word >>> CONTEXT_SHIFT
    return c === CONTEXT_ESCAPE ? (this.overflow.get(term)?.get(doc) as number) : c
  }

  /** The position of `doc` in the term's block, or where it would be inserted. */
  private find(term: number, doc: number): number {
    const s = this.start[term] as number
    let lo = 0
    let hi = this.length[term] as number
    // Appends in id order are the common case (indexing a store): check the end first.
    if (hi > 0 && (this.docs[s + hi - 1] as number) < doc) return hi
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.docs[s + mid] as number) < doc) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  private ensureTerm(term: number): void {
    if (term < this.live.length) return
    this.start = grown(this.start, term + 1)
    this.length = grown(this.length, term + 1)
    this.capacity = grown(this.capacity, term + 1)
    this.live = grown(this.live, term + 1)
  }

  /** Drops a term's tombstones in place. */
  private squeeze(term: number): void {
    const s = this.start[term] as number
    const n = this.length[term] as number
    let w = s
    for (let r = s; r < s + n; r++) {
      if (this.freqs[r] === 0) continue
      this.docs[w] = this.docs[r] as number
      this.freqs[w++] = this.freqs[r] as number
    }
    this.length[term] = w - s
  }

  /** Gives a term's block room for `capacity` postings: moved to the end of the pools unless it is last. */
  private move(term: number, capacity: number): void {
    const end = (this.start[term] as number) + (this.capacity[term] as number)
    const extra = capacity - (this.capacity[term] as number)
    if (end === this.used && this.used + extra <= this.docs.length) {
      // The last block grows where it is.
      this.capacity[term] = capacity
      this.used += extra
      return
    }
    this.reserve(capacity)
    const s = this.start[term] as number
    const n = this.length[term] as number
    this.docs.copyWithin(this.used, s, s + n)
    this.freqs.copyWithin(this.used, s, s + n)
    this.dead += this.capacity[term] as number
    this.start[term] = this.used
    this.capacity[term] = capacity
    this.used += capacity
  }

  /** Room for `slots` more at the end of the pools: compacts them first when a third is dead, else grows. */
  private reserve(slots: number): void {
    if (this.used + slots <= this.docs.length) return
    // Blocks that doubled leave about a third of the pools dead: reclaim before growing, grow by half.
    if (3 * this.dead >= this.used) this.compact()
    if (this.used + slots <= this.docs.length) return
    const size = Math.max(Math.ceil(1.5 * this.docs.length), this.used + slots)
    const docs = new Int32Array(size)
    const freqs = new Uint16Array(size)
    docs.set(this.docs.subarray(0, this.used))
    freqs.set(this.freqs.subarray(0, this.used))
    this.docs = docs
    this.freqs = freqs
  }

  /** Drops dead space and tombstones, pools sized to what is live: after a bulk build, which leaves both. */
  trim(): void {
    const live = this.total
    // Amortised: the slack a trim gives back took at least as many writes to make.
    if (4 * (this.docs.length - live) > this.docs.length) this.compact(Math.max(1024, live))
  }

  /** Copies every live block tightly (tombstones dropped) into fresh pools of `size` slots. */
  private compact(size = this.docs.length): void {
    const docs = new Int32Array(size)
    const freqs = new Uint16Array(size)
    let w = 0
    for (let term = 0; term < this.live.length; term++) {
      const s = this.start[term] as number
      const n = this.length[term] as number
      this.start[term] = w
      for (let r = s; r < s + n; r++) {
        if (this.freqs[r] === 0) continue
        docs[w] = this.docs[r] as number
        freqs[w++] = this.freqs[r] as number
      }
      this.length[term] = w - (this.start[term] as number)
      this.capacity[term] = this.length[term] as number
    }
    this.docs = docs
    this.freqs = freqs
    this.used = w
    this.dead = 0
  }
}
