/**
 * The k best rows a scan has seen, judged on their sort keys' column order keys (see column-order.ts): a
 * max-heap of row positions with the worst kept row on top, so deciding that a row cannot enter the top k is
 * one or two double comparisons with no value built. Only rows whose keys are all placed (no NaN) are kept;
 * a row it cannot judge is admitted, and the caller's exact top-k decides it.
 */
export class KeyBound {
  private readonly heap: Int32Array
  private size = 0
  /** The first key's order keys and direction, and the worst kept row's first key. */
  private readonly first: Float64Array
  private readonly firstDir: number
  private topFirst = Number.NaN

  /**
   * `keys`/`dirs`: the leading sort keys' order keys and directions (1 ascending, -1 descending). `complete`:
   * they are all the sort keys, so rows equal on them keep scan order (a later row orders after).
   */
  constructor(
    private readonly keys: Float64Array[],
    private readonly dirs: number[],
    readonly complete: boolean,
    private readonly k: number,
  ) {
    this.heap = new Int32Array(k)
    this.first = keys[0] as Float64Array
    this.firstDir = dirs[0] as number
  }

  /** Whether row i can still be among the k best of the rows scanned so far. */
  admits(i: number): boolean {
    if (this.size < this.k) return true
    // Most rows differ from the worst kept one on the first key: decided without the general loop.
    const x = this.first[i] as number
    const top = this.topFirst
    if (x < top) return this.firstDir > 0
    if (x > top) return this.firstDir < 0
    const c = this.compare(i, this.heap[0] as number)
    // NaN: a key the order keys cannot place; 0: equal on the lead keys, after when they are all the keys.
    return c < 0 || Number.isNaN(c) || (c === 0 && !this.complete)
  }

  /**
   * Drops from `selection[0 … n)` the rows whose first key orders strictly after the worst kept row's (they
   * cannot enter), keeping order; returns how many remain. Branch-free over the rows.
   */
  prune(selection: Int32Array, n: number): number {
    if (this.size < this.k) return n
    const { first, topFirst, firstDir } = this
    let kept = 0
    for (let s = 0; s < n; s++) {
      const i = selection[s] as number
      selection[kept] = i
      // NaN (unplaced, or infinities that tie) is not after: kept for the exact check.
      kept += Number(!(((first[i] as number) - topFirst) * firstDir > 0))
    }
    return kept
  }

  /** Keeps admitted row i (scanned after every kept row) when its keys are all placed. */
  add(i: number): void {
    const { keys, heap } = this
    for (let j = 0; j < keys.length; j++) {
      const x = (keys[j] as Float64Array)[i] as number
      if (Number.isNaN(x)) return
    }
    if (this.size < this.k) {
      let at = this.size++
      while (at > 0) {
        const parent = (at - 1) >> 1
        if (!this.worse(i, heap[parent] as number)) break
        heap[at] = heap[parent] as number
        at = parent
      }
      heap[at] = i
      this.topFirst = this.first[heap[0] as number] as number
      return
    }
    // Replace the top (admitted rows order before it) and sift down.
    let at = 0
    for (;;) {
      const left = 2 * at + 1
      if (left >= this.size) break
      const right = left + 1
      const child =
        right < this.size && this.worse(heap[right] as number, heap[left] as number) ? right : left
      if (!this.worse(heap[child] as number, i)) break
      heap[at] = heap[child] as number
      at = child
    }
    heap[at] = i
    this.topFirst = this.first[heap[0] as number] as number
  }

  /** Row a against row b on the lead keys: negative before, positive after, 0 equal, NaN unplaced. */
  private compare(a: number, b: number): number {
    const { keys, dirs } = this
    for (let j = 0; j < keys.length; j++) {
      const column = keys[j] as Float64Array
      const x = column[a] as number
      const y = column[b] as number
      if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN
      if (x !== y) return x < y ? -(dirs[j] as number) : (dirs[j] as number)
    }
    return 0
  }

  /**
   * Whether kept row a orders after kept row b on the keys. Equal rows may sit either way: only the top's
   * keys are ever read, and they are the k-th best keys whichever of equal rows is on top.
   */
  private worse(a: number, b: number): boolean {
    return this.compare(a, b) > 0
  }
}
