/**
 * The index's terms: one Map from stem to a stable term id (ids are never reused; the table only grows),
 * the stems by id, and the order in which terms last entered the vocabulary (went from no document to
 * one). Spelling correction breaks ties by that order — the order the former Map of postings iterated in —
 * so that a correction never depends on how postings are stored.
 */
export class TermDictionary {
  /** `count` tells how many documents have a term (the postings'). */
  constructor(private readonly count: (id: number) => number) {}

  private readonly ids = new Map<string, number>()
  private readonly names: string[] = []
  /** Term ids in the order they entered the vocabulary; an entry is stale when the term left since. */
  private order = new Int32Array(256)
  private orderLength = 0
  /** Each term's position in `order` (valid while the term is in the vocabulary). */
  private rank = new Int32Array(256)
  /** Terms in at least one document. */
  live = 0

  /** The term's id, made if new. */
  id(term: string): number {
    const known = this.ids.get(term)
    if (known !== undefined) return known
    const n = this.names.length
    this.ids.set(term, n)
    this.names.push(term)
    return n
  }

  lookup(term: string): number | undefined {
    return this.ids.get(term)
  }

  /** A term went from no document to one. */
  entered(id: number): void {
    if (this.orderLength === this.order.length) this.growOrder()
    if (id >= this.rank.length) {
      const rank = new Int32Array(Math.max(2 * this.rank.length, id + 1))
      rank.set(this.rank)
      this.rank = rank
    }
    this.rank[id] = this.orderLength
    this.order[this.orderLength++] = id
    this.live++
  }

  /** A term is in no document any more. */
  left(): void {
    this.live--
  }

  /** Visits the terms in documents, in the order they entered the vocabulary (near-term.ts's Vocabulary). */
  forEach(visit: (posting: { readonly size: number }, term: string) => void): void {
    const count = this.count
    const posting = { size: 0 }
    for (let i = 0; i < this.orderLength; i++) {
      const id = this.order[i] as number
      const size = count(id)
      if (size === 0 || this.rank[id] !== i) continue
      posting.size = size
      visit(posting, this.names[id] as string)
    }
  }

  /** Makes room in `order`, dropping stale entries first when they are the majority. */
  private growOrder(): void {
    if (2 * this.live < this.orderLength) {
      let w = 0
      for (let i = 0; i < this.orderLength; i++) {
        const id = this.order[i] as number
        if (this.rank[id] !== i || this.count(id) === 0) continue
        this.rank[id] = w
        this.order[w++] = id
      }
      this.orderLength = w
      if (w < this.order.length) return
    }
    const order = new Int32Array(2 * this.order.length)
    order.set(this.order)
    this.order = order
  }
}
