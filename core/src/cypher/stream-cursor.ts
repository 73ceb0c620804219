import type { GraphReader } from '../graph/types.js'
import { type DetachedValue, detach } from './detached.js'
import { budgetError, CypherError } from './errors.js'
import { type CypherBudgets, chain, checkDeadline, type ExecContext, type Stage } from './executor/context.js'
import type { StreamSlice } from './executor/resumable.js'
import type { StreamPlan } from './plan.js'
import type { Value } from './values.js'

/** Source items one slice takes at most: a pull whose filters pass few rows returns between slices. */
export const SLICE_ITEMS = 65_536

export interface PullOptions {
  signal?: AbortSignal | undefined
  /** Epoch ms by which this pull must be done (REQUEST_TIMEOUT past it). */
  deadline?: number | undefined
}

/**
 * A streamed result: the plan's pipeline, built once, run in slices as the consumer pulls (Bolt's `PULL n`).
 * Each slice runs synchronously to an item boundary of the first clause's source (executor/resumable.ts), so
 * memory holds one slice, not the result. The compute time of all slices together counts against
 * `maxExecutionMs`; `maxStreamedRecords` bounds what is delivered; a slice on the published graph reads it as
 * it is then (read committed between slices, as Neo4j's default isolation).
 */
export class ResultCursor {
  private readonly stream: StreamSlice = {
    full: false,
    itemsLeft: 0,
    paused: false,
    exhausted: false,
    source: undefined,
  }
  private readonly head: Stage
  /** The run's context, made once (its stages hold it); each slice sets its clock, deadline and signal. */
  private readonly ctx: ExecContext & {
    startedAt: number
    signal: AbortSignal | undefined
    deadline: number | undefined
  }
  /** Rows produced past what the last pull asked (one source item's tail), delivered first next time. */
  private held: Value[][] = []
  private heldAt = 0
  private wanted = 0
  /** While prefetching: the rows to compute ahead (held), after which the slice pauses. */
  private ahead = 0
  private sink: ((row: Value[]) => void) | undefined
  private delivered = 0
  private computeMs = 0
  private done = false
  private closedBy: string | undefined

  constructor(
    private readonly plan: StreamPlan,
    readonly columns: string[],
    ctx: ExecContext,
    /** The workspace the rows come from: its published graph, or a transaction's overlay (`onPublishedGraph`). */
    readonly workspaceId: string,
  ) {
    this.ctx = { ...ctx, budgets: streamedBudgets(ctx.budgets), stream: this.stream }
    const slots = plan.slots
    const final: Stage = {
      push: (row) => {
        const values = new Array<Value>(slots.length)
        for (let i = 0; i < slots.length; i++) values[i] = row[slots[i] as number] as Value
        if (this.wanted > 0) this.deliver(values)
        else this.hold(values)
        return true
      },
      finish() {},
    }
    this.head = chain(plan.factories, this.ctx, final)
  }

  /** True when the slices read the published graph (the caller runs them where reads are allowed). */
  get onPublishedGraph(): boolean {
    return this.ctx.tx === undefined
  }

  /** More rows may come (or are held). */
  get hasMore(): boolean {
    return this.closedBy === undefined && (!this.done || this.heldAt < this.held.length)
  }

  /** The pipeline ran to its end: the rows still to deliver are the held ones (see `prefetch`). */
  get finished(): boolean {
    return this.done && this.closedBy === undefined
  }

  /**
   * Computes up to `n` rows ahead, held for the first pull, with the run's own signal and deadline: the engine
   * does it when the query is run, inside the caller's read, so a small result needs no cursor (`finished`,
   * then `takeHeld`) and a large one has its first page ready.
   */
  prefetch(n: number): void {
    if (!(n > 0) || this.done) return
    this.ahead = n
    try {
      this.slice({ signal: this.ctx.signal, deadline: this.ctx.deadline })
    } catch (error) {
      this.close('failed')
      throw error
    } finally {
      this.ahead = 0
    }
  }

  /** The held rows, taken (a finished cursor's whole result, as Cypher values referring to `graph`). */
  takeHeld(): Value[][] {
    const rows = this.heldAt === 0 ? this.held : this.held.slice(this.heldAt)
    this.held = []
    this.heldAt = 0
    return rows
  }

  /** Records delivered so far. */
  get count(): number {
    return this.delivered
  }

  /**
   * Up to `n` (> 0) next rows into `sink`, detached from the graph; returns how many: fewer when the slice took
   * its `SLICE_ITEMS` source items first (`hasMore` says whether to pull again). Throws the query's error (a
   * budget, the deadline, an abort), after which the cursor is closed.
   */
  pull(n: number, sink: (row: DetachedValue[]) => void, options: PullOptions = {}): number {
    const graph = this.ctx.graph
    return this.pullValues(
      n,
      (values) => {
        // Scalars are their own detached form; only nodes, relationships, paths and containers are read out.
        for (let i = 0; i < values.length; i++) {
          const value = values[i] as Value
          if (value !== null && typeof value === 'object') values[i] = detach(value, graph) as Value
        }
        sink(values as DetachedValue[])
      },
      options,
    )
  }

  /** The graph the rows refer to (for `pullValues`). */
  get graph(): GraphReader {
    return this.ctx.graph
  }

  /** `pull` with the rows as Cypher values, referring to `graph` (the TCK runner compares them so). */
  pullValues(n: number, sink: (row: Value[]) => void, options: PullOptions = {}): number {
    if (this.closedBy !== undefined)
      throw new CypherError('QUERY_ABORTED', `the result was ${this.closedBy}`, 'limit')
    if (!(n > 0)) throw new RangeError(`pull needs a positive count, not ${n}`)
    const before = this.delivered
    this.sink = sink
    this.wanted = n
    try {
      while (this.wanted > 0 && this.heldAt < this.held.length) {
        this.deliver(this.held[this.heldAt++] as Value[])
      }
      if (this.heldAt === this.held.length && this.heldAt > 0) {
        this.held = []
        this.heldAt = 0
      }
      if (this.wanted > 0 && !this.done) this.slice(options)
    } catch (error) {
      this.close('failed')
      throw error
    } finally {
      this.sink = undefined
      this.wanted = 0
    }
    return this.delivered - before
  }

  /** Stops the work: DISCARD, RESET, a closed connection or transaction. Idempotent. */
  close(reason = 'closed'): void {
    this.closedBy ??= reason
    this.done = true
    this.held = []
    this.heldAt = 0
    this.stream.source = undefined
  }

  /** Runs the pipeline from where the previous slice stopped until `wanted` rows are out (or it ends). */
  private slice(options: PullOptions): void {
    const ctx = this.ctx
    const started = Date.now()
    ctx.startedAt = started - this.computeMs
    ctx.signal = options.signal
    ctx.deadline = options.deadline
    checkDeadline(ctx)
    const stream = this.stream
    stream.full = false
    stream.paused = false
    stream.itemsLeft = SLICE_ITEMS
    try {
      this.head.push(this.plan.blankRow())
      // Not paused: the source ran out, a LIMIT stopped it, or the query never reached it (nothing to scan).
      if (!stream.paused || stream.exhausted) {
        this.head.finish()
        this.done = true
        this.stream.source = undefined
      }
    } finally {
      this.computeMs += Date.now() - started
    }
  }

  private deliver(values: Value[]): void {
    const max = this.ctx.budgets.maxStreamedRecords
    if (++this.delivered > max) throw budgetError('streamed_records', this.delivered, max)
    ;(this.sink as (row: Value[]) => void)(values)
    if (--this.wanted === 0) this.stream.full = true
  }

  /** Rows one source item produces past the slice's end wait for the next pull, up to the HTTP row budget. */
  private hold(values: Value[]): void {
    const limit = this.ctx.budgets.maxReturnedRecords
    if (this.held.length - this.heldAt >= limit)
      throw new CypherError(
        'QUERY_BUDGET_EXCEEDED',
        `query budget exceeded for returned_records: one row of the streamed query's first clause produced more than ${limit} records beyond the ones asked for at once`,
        'limit',
      )
    this.held.push(values)
    if (this.ahead > 0 && this.held.length - this.heldAt >= this.ahead) this.stream.full = true
  }
}

/**
 * A streamed run holds one slice, not its result: the loaded-records and adjacency bounds, which bound what a
 * whole result may cost, scale with what it may deliver, in the proportion HTTP's budgets keep to its row
 * budget (50,000 loaded for 10,000 returned). Time and the other bounds stay.
 */
export function streamedBudgets(budgets: CypherBudgets): CypherBudgets {
  const scale = Math.max(1, budgets.maxStreamedRecords / Math.max(1, budgets.maxReturnedRecords))
  return {
    ...budgets,
    maxLoadedRecords: Math.ceil(budgets.maxLoadedRecords * scale),
    maxWarmAdjacencyEntries: Math.ceil(budgets.maxWarmAdjacencyEntries * scale),
  }
}
