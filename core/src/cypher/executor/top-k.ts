import type { Eval } from '../compile-expr.js'
import { orderCompare, type Value } from '../values.js'
import type { ExecContext, Row } from './context.js'

/**
 * The rows of an ORDER BY that can still come out: with a LIMIT after it only the first `k` (SKIP + LIMIT)
 * can, so the buffer is cut back to them whenever it doubles, and a row ordering after the current last kept
 * one is dropped on arrival, most of them on the first key alone: top-k in O(n log k) instead of sorting
 * everything. The sort is stable and kept rows always precede later arrivals, so ties come out exactly as a
 * full sort gives them. Without a LIMIT (`k` infinite) it is a plain stable sort.
 */
export class TopK<T> {
  private buffer: { item: T; keys: Value[] }[] = []
  private last: Value[] | undefined
  private readonly byKeys = (a: { keys: Value[] }, b: { keys: Value[] }): number =>
    this.compare(a.keys, b.keys)

  constructor(
    private readonly keys: Eval[],
    private readonly directions: number[],
    private readonly k: number,
  ) {}

  /** Evaluates the sort keys on `row` (lazily) and keeps `item` when it can still be among the first k. */
  offer(item: T, row: Row, ctx: ExecContext): void {
    const keys = this.keys
    const first = (keys[0] as Eval)(row, ctx)
    const last = this.last
    if (last !== undefined) {
      const c = orderCompare(first, last[0] as Value) * (this.directions[0] as number)
      if (c > 0 || (c === 0 && keys.length === 1)) return
    }
    const values = [first]
    for (let i = 1; i < keys.length; i++) values.push((keys[i] as Eval)(row, ctx))
    if (last !== undefined && this.compare(values, last) >= 0) return
    this.buffer.push({ item, keys: values })
    if (this.buffer.length >= 2 * this.k + 64) {
      this.buffer.sort(this.byKeys)
      this.buffer = this.buffer.slice(0, this.k)
      this.last = this.buffer.at(-1)?.keys
    }
  }

  /** The kept items in sort order. */
  sorted(): T[] {
    this.buffer.sort(this.byKeys)
    return this.buffer.map((entry) => entry.item)
  }

  private compare(a: Value[], b: Value[]): number {
    for (let i = 0; i < this.directions.length; i++) {
      const c = orderCompare(a[i] as Value, b[i] as Value)
      if (c !== 0) return c * (this.directions[i] as number)
    }
    return 0
  }
}
