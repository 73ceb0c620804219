import { type ExecContext, load } from './context.js'

/**
 * `load` for a tight scan loop: rows are counted in a local variable and handed to `load` in one go just
 * before the next one could hit a budget edge or the deadline check, so the counters, the row an error is
 * raised on and the error itself are exactly those of calling `load` per row.
 */
export class RowBudget {
  private pending = 0
  private room: number

  constructor(private readonly ctx: ExecContext) {
    this.room = this.headroom()
  }

  /** Counts one row (throws as `load` would on it). */
  count(): void {
    if (++this.pending >= this.room) this.flush()
  }

  /** Counts n rows in a row, as n calls of `count`. */
  countMany(n: number): void {
    while (n > 0) {
      // At least one row a step: with no room left, that row is the one `load` throws on.
      const step = Math.max(1, Math.min(n, this.room - this.pending))
      this.pending += step
      n -= step
      if (this.pending >= this.room) this.flush()
    }
  }

  /** Hands the counted rows to `load`; call before anything else reads the context's counters. */
  flush(): void {
    const ctx = this.ctx
    if (this.pending === 0) return
    // All but the last cannot reach an edge (the headroom says so): counted in one step, the last by `load`,
    // which throws or checks the deadline as it would have on that row. Cleared first, so a flush after
    // that throw does not count the row twice.
    const earlier = this.pending - 1
    this.pending = 0
    ctx.loaded += earlier
    ctx.scanned += earlier
    ctx.ticks += earlier
    load(ctx)
    this.room = this.headroom()
  }

  /** Rows until the next one could throw or reach a deadline check (`tick` checks every 1024th). */
  private headroom(): number {
    const { ctx } = this
    return Math.min(
      ctx.budgets.maxLoadedRecords - ctx.loaded,
      ctx.budgets.maxScannedRecords - ctx.scanned,
      1024 - (ctx.ticks & 1023),
    )
  }
}
