import { describe, expect, it } from 'vitest'
import { DEFAULT_BUDGETS, type ExecContext, load } from './context.js'
import { RowBudget } from './row-budget.js'

/** The counters `load` reads, with a loaded-records budget and a starting point. */
function context(maxLoadedRecords: number, loaded: number, ticks: number): ExecContext {
  return {
    budgets: { ...DEFAULT_BUDGETS, maxLoadedRecords },
    loaded,
    scanned: loaded,
    ticks,
    startedAt: Date.now(),
  } as unknown as ExecContext
}

/** What counting `rows` leaves behind: the counters and the error raised, if any. */
function outcome(ctx: ExecContext, count: () => void) {
  let error: unknown
  try {
    count()
  } catch (e) {
    error = e
  }
  return { loaded: ctx.loaded, scanned: ctx.scanned, ticks: ctx.ticks, error: (error as Error)?.message }
}

describe('batched row counting', () => {
  it('counts and raises exactly as one `load` per row, across budget edges and deadline ticks', () => {
    for (const [max, start, ticks] of [
      [50, 0, 0],
      [50, 50, 7],
      [1000, 990, 1020],
      [5000, 0, 1023],
    ] as const)
      for (const batches of [[0], [1], [10, 30], [49, 1, 1], [2000], [3, 1021, 5, 9000]]) {
        const perRow = context(max, start, ticks)
        const expected = outcome(perRow, () => {
          for (const n of batches) for (let i = 0; i < n; i++) load(perRow)
        })
        const one = context(max, start, ticks)
        const byCount = new RowBudget(one)
        expect(
          outcome(one, () => {
            for (const n of batches) for (let i = 0; i < n; i++) byCount.count()
            byCount.flush()
          }),
        ).toEqual(expected)
        const many = context(max, start, ticks)
        const byMany = new RowBudget(many)
        expect(
          outcome(many, () => {
            for (const n of batches) byMany.countMany(n)
            byMany.flush()
          }),
          `${max} ${start} ${ticks} ${batches}`,
        ).toEqual(expected)
      }
  })
})
