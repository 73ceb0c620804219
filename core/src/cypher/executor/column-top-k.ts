import { orderKeysOf } from '../../graph/column-order.js'
import type { PropertyColumn } from '../../graph/columns.js'
import type { PropertyValue } from '../../graph/types.js'
import type { Eval } from '../compile-expr.js'
import { truth } from '../values.js'
import { bindColumnTest, type ColumnTestShape, columnTestPasses } from './column-test.js'
import type { ExecContext, Row } from './context.js'
import { KeyBound } from './key-bound.js'
import { RowBudget } from './row-budget.js'
import { TopK } from './top-k.js'

/** The parts of a fused scan + top-k plan the scan loop reads. */
export interface ColumnTopKPlan {
  /** Scratch-row slots of the scanned properties. */
  keySlots: number[]
  /** WHERE conjuncts on the properties, in order; a row passes when each is true. */
  where: Eval[]
  /** Per `where` conjunct, its column-test form (constant compiled) when it has one. */
  columnTests: ({ shape: ColumnTestShape; constant: Eval } | undefined)[]
  items: { slot: number; value: Eval }[]
  sortKeys: Eval[]
  directions: number[]
  /** Per sort key, the index of the property it is a plain read of. */
  sortColumns: (number | undefined)[]
  /** No item can fail (plain reads and literals): a row can be dropped before it is projected. */
  pureItems: boolean
}

/** Rows filtered together, conjunct by conjunct, when no conjunct can fail (see `run`). */
const BATCH = 1024

/**
 * One run of a fused label scan + filter + top-k over property columns (row i is the label's i-th node).
 * The loop works on the columns' order keys where it can: a conjunct `v.key op constant` is one comparison
 * of doubles, and a row that orders after the k best seen so far on its sort keys' order keys is dropped
 * before its cells are read or its items projected (`KeyBound`). Anything those cannot decide (null, NaN,
 * other types, other expressions) goes through the general evaluators on a scratch row, so rows, order,
 * errors and budget counts are those of evaluating everything row by row. A class, not closures, so V8
 * optimizes the loops once for all runs instead of per query.
 */
export class ColumnTopK {
  readonly top: TopK<number>
  private readonly values: (readonly (PropertyValue | null)[] | undefined)[]
  private filled = -1
  private readonly testKeys: (Float64Array | undefined)[] = []
  private readonly testAccepts: number[] = []
  private readonly testAt: number[] = []
  private readonly bound: KeyBound | undefined
  /** Row positions passing the filter, per batch. */
  private readonly selection: Int32Array
  /** Rows per batch: 1 (row by row) when a conjunct's evaluation could raise an error. */
  private readonly batch: number

  constructor(
    private readonly plan: ColumnTopKPlan,
    columns: (PropertyColumn | undefined)[],
    k: number,
    private readonly scratch: Row,
    private readonly ctx: ExecContext,
  ) {
    this.top = new TopK<number>(plan.sortKeys, plan.directions, k)
    this.values = columns.map((column) => column?.values)
    for (const test of plan.columnTests) {
      const bound = test && bindColumnTest(test.shape, test.constant, columns[test.shape.key], scratch, ctx)
      this.testKeys.push(bound?.keys)
      this.testAccepts.push(bound?.accepts ?? 0)
      this.testAt.push(bound?.at ?? 0)
    }
    // With k at least the label's size no row can be dropped (and a huge LIMIT must not size the heap).
    const rows = columns.find((column) => column !== undefined)?.values.length ?? 0
    this.bound = plan.pureItems && k > 0 && k < rows ? keyBound(plan, columns, k) : undefined
    // A column test's general evaluation is a comparison, which cannot fail: filtering a batch conjunct by
    // conjunct then raises no error out of row order. Any other conjunct keeps the scan row by row.
    this.batch = plan.columnTests.every((test) => test !== undefined) ? BATCH : 1
    this.selection = new Int32Array(this.batch)
  }

  /** Scans rows 0 … count-1. */
  run(count: number): void {
    const { items } = this.plan
    const { top, scratch, ctx, bound, selection } = this
    const budget = new RowBudget(ctx)
    // With a bound on every sort key nothing after the filter can fail (items and keys are column reads):
    // a batch's rows are counted at once and the bound prunes them before the per-row check.
    const whole = bound?.complete === true
    try {
      for (let start = 0; start < count; start += this.batch) {
        let passed = this.select(start, Math.min(count, start + this.batch))
        if (whole) {
          budget.countMany(passed)
          passed = (bound as KeyBound).prune(selection, passed)
        }
        for (let s = 0; s < passed; s++) {
          const i = selection[s] as number
          if (!whole) budget.count()
          if (bound !== undefined) {
            if (!bound.admits(i)) continue
            bound.add(i)
          }
          this.fill(i)
          for (const item of items) scratch[item.slot] = item.value(scratch, ctx)
          top.offer(i, scratch, ctx)
        }
      }
    } catch (error) {
      budget.flush()
      throw error
    }
    budget.flush()
  }

  /** Puts row i's cells in the scratch row's property slots (once per row). */
  fill(i: number): void {
    if (this.filled === i) return
    this.filled = i
    const { keySlots } = this.plan
    const values = this.values
    for (let j = 0; j < keySlots.length; j++) this.scratch[keySlots[j] as number] = values[j]?.[i] ?? null
  }

  /** Puts the rows of [start, end) passing every conjunct in the selection, in order; returns how many. */
  private select(start: number, end: number): number {
    const { selection, testKeys } = this
    if (testKeys.length === 0) {
      for (let i = start; i < end; i++) selection[i - start] = i
      return end - start
    }
    let passed = this.selectFirst(start, end)
    for (let j = 1; j < testKeys.length && passed > 0; j++) {
      const keys = testKeys[j]
      let kept = 0
      if (keys === undefined) {
        for (let s = 0; s < passed; s++) {
          const i = selection[s] as number
          if (this.passes(j, i)) selection[kept++] = i
        }
      } else {
        const accepts = this.testAccepts[j] as number
        const at = this.testAt[j] as number
        for (let s = 0; s < passed; s++) {
          const i = selection[s] as number
          const key = keys[i] as number
          selection[kept] = i
          // NaN marks a cell the order keys cannot place: the general evaluation decides it.
          if (Number.isNaN(key)) kept += Number(this.passes(j, i))
          else kept += columnTestPasses(accepts, key, at)
        }
      }
      passed = kept
    }
    return passed
  }

  /** The first conjunct over the rows of [start, end), straight from the range. */
  private selectFirst(start: number, end: number): number {
    const { selection } = this
    const keys = this.testKeys[0]
    let kept = 0
    if (keys === undefined) {
      for (let i = start; i < end; i++) if (this.passes(0, i)) selection[kept++] = i
      return kept
    }
    const accepts = this.testAccepts[0] as number
    const at = this.testAt[0] as number
    for (let i = start; i < end; i++) {
      const key = keys[i] as number
      selection[kept] = i
      if (Number.isNaN(key)) kept += Number(this.passes(0, i))
      else kept += columnTestPasses(accepts, key, at)
    }
    return kept
  }

  /** Conjunct j on row i, by the general evaluator. */
  private passes(j: number, i: number): boolean {
    this.fill(i)
    return truth((this.plan.where[j] as Eval)(this.scratch, this.ctx)) === true
  }
}

/**
 * The bound on the sort keys that are plain column reads: the first one (a row ordering after the k best on
 * it is one the top-k drops after reading that key alone), or all of them when every one is (then no key
 * evaluation that could fail is skipped). Undefined when the first is not.
 */
function keyBound(
  plan: ColumnTopKPlan,
  columns: (PropertyColumn | undefined)[],
  k: number,
): KeyBound | undefined {
  const keys: Float64Array[] = []
  for (const at of plan.sortColumns) {
    const column = at === undefined ? undefined : columns[at]
    const order = column === undefined ? undefined : orderKeysOf(column)
    if (order === undefined) break
    keys.push(order.keys)
  }
  if (keys.length === 0) return undefined
  const complete = keys.length === plan.directions.length
  const lead = complete ? keys : keys.slice(0, 1)
  return new KeyBound(lead, plan.directions.slice(0, lead.length), complete, k)
}
