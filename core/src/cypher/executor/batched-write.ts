import type { CommitRecord } from '../../graph/commit.js'
import type { GraphStore } from '../../graph/store.js'
import type { Transaction } from '../../graph/transaction.js'
import type { GraphReader } from '../../graph/types.js'
import { type CsvImportPolicy, type CsvPosition, loadCsvRuns } from '../csv/index.js'
import { budgetError, CypherError } from '../errors.js'
import type { BatchedPlan } from '../plan.js'
import type { Value } from '../values.js'
import {
  chain,
  type ExecContext,
  emptySummary,
  type MutationSummary,
  type Row,
  type Stage,
} from './context.js'

/** What a batched write needs from the engine: contexts on a version, and the commit of one transaction. */
export interface BatchHost {
  context(graph: GraphReader, tx: Transaction | undefined, stats: MutationSummary): ExecContext
  /** Publishes a prepared, non-empty transaction; resolves once it is durable. */
  commit(tx: Transaction, record: CommitRecord): Promise<void>
  maxReturnedRecords: number
  /** Where a leading LOAD CSV may read. */
  csvImport: CsvImportPolicy
  /** Called after each committed batch (the request log's progress line). */
  progress?: ((progress: BatchProgress) => void) | undefined
}

/** A batch committed: its number, the input rows committed so far, and the time since the run began. */
export interface BatchProgress {
  batch: number
  rows: number
  elapsedMs: number
}

const collectInto = (rows: Row[]): Stage => ({
  push(row) {
    rows.push(row)
    return true
  },
  finish() {},
})

/**
 * `… CALL { … } IN TRANSACTIONS OF n ROWS …`: the reads before the CALL give the input rows; every n of them
 * run through the subquery in a transaction of their own, committed and durable before the next begins; the
 * clauses after the CALL run over the joined rows in a last transaction. Mutation counts add up across the
 * committed transactions. A failing batch fails the query under ON ERROR FAIL (the batches before it stay
 * committed); under CONTINUE it is rolled back and the run goes on, under BREAK the run stops there: each input
 * row of a batch that failed or never ran gives one row with the subquery's columns null.
 *
 * A leading `LOAD CSV` streams: rows are read only as the batches need them, so a file of any size loads in
 * the memory of one batch (the joined rows are kept only when clauses after the CALL use them). Each batch
 * then gets the time and row budgets afresh, the reads that feed it included.
 */
export async function runBatched(
  batched: BatchedPlan,
  store: GraphStore,
  host: BatchHost,
): Promise<{ rows: Value[][]; ctx: ExecContext }> {
  const stats = emptySummary()
  const commit = async (tx: Transaction): Promise<void> => {
    const record = tx.prepare()
    if (record.ops.length > 0) await host.commit(tx, record)
  }
  const pending: Row[] = []
  // Where in the file each pending row was read: linenumber() and file() in the subquery answer as without
  // the CALL (the batch runs after its rows were read).
  const positions: (CsvPosition | undefined)[] = []
  const reads = host.context(store, undefined, stats)
  const head = chain(batched.prefix, reads, {
    push(row) {
      pending.push(row)
      positions.push(reads.csv)
      return true
    },
    finish() {},
  })
  const size = batched.batchSize(batched.blankRow(), reads)
  // Without clauses after the CALL nothing reads the joined rows: they are not kept (a big load stays small).
  const keep = batched.suffix.length > 0 || batched.returns
  const joined: Row[] = []
  const unjoined = (row: Row, status: BatchStatus): Row => {
    const out = row.slice()
    for (const slot of batched.returnSlots) out[slot] = null
    return withStatus(out, status)
  }
  const withStatus = (row: Row, status: BatchStatus): Row => {
    if (batched.statusSlot !== undefined) row[batched.statusSlot] = statusMap(status)
    return row
  }
  const startedAt = Date.now()
  let broken = false
  let batch = 0
  let committedRows = 0
  const runBatch = async (rows: Row[], at: (CsvPosition | undefined)[]): Promise<void> => {
    batch++
    if (broken) {
      if (keep) for (const row of rows) joined.push(unjoined(row, { transactionId: null, error: null }))
      return
    }
    const transactionId = `inner-transaction-${batch}`
    const tx = store.begin()
    const batchStats = emptySummary()
    const ctx = host.context(tx, tx, batchStats)
    const out: Row[] = []
    // Without clauses after the CALL the joined rows are dropped as they come (nothing holds a batch of them).
    const collect = keep ? (result: Row) => out.push(result) > 0 : () => true
    try {
      for (let i = 0; i < rows.length; i++) {
        ctx.csv = at[i]
        batched.join.join(rows[i] as Row, ctx, collect)
      }
      ctx.csv = undefined
      await commit(tx)
    } catch (error) {
      if (batched.onError === 'fail' || !recoverable(error)) throw error
      // The transaction is dropped uncommitted: what the batch wrote is gone.
      if (keep)
        for (const row of rows) joined.push(unjoined(row, { transactionId, error: (error as Error).message }))
      broken = batched.onError === 'break'
      return
    }
    addInto(stats, batchStats)
    committedRows += rows.length
    host.progress?.({ batch, rows: committedRows, elapsedMs: Date.now() - startedAt })
    if (keep)
      for (const row of out) joined.push(withStatus(row, { transactionId, error: null, committed: true }))
  }
  const csv = batched.csv
  if (csv === undefined) head.push(batched.blankRow())
  else {
    for await (const run of loadCsvRuns(csv, reads, batched.blankRow(), host.csvImport)) {
      for (const { row, position } of run) {
        reads.csv = position
        head.push(row)
        if (pending.length < size) continue
        while (pending.length >= size) await runBatch(pending.splice(0, size), positions.splice(0, size))
        // The reads feeding the next batch get the budgets afresh, as the batch itself does.
        reads.startedAt = Date.now()
        reads.loaded = 0
        reads.scanned = 0
      }
    }
    reads.csv = undefined
  }
  head.finish()
  while (pending.length > 0) await runBatch(pending.splice(0, size), positions.splice(0, size))
  const tx = store.begin()
  const ctx = host.context(tx, tx, stats)
  const results: Row[] = []
  const tail = chain(batched.suffix, ctx, collectInto(results))
  for (const row of joined) tail.push(row)
  tail.finish()
  await commit(tx)
  const rows = batched.returns ? results.map((row) => batched.slots.map((slot) => row[slot] as Value)) : []
  if (rows.length > host.maxReturnedRecords)
    throw budgetError('returned_records', rows.length, host.maxReturnedRecords)
  return { rows, ctx }
}

/** An inner transaction's fate: never started (no id), failed (its error), or committed. */
interface BatchStatus {
  transactionId: string | null
  error: string | null
  committed?: true
}

/** `REPORT STATUS AS s`: Neo4j's status map. */
function statusMap(status: BatchStatus): Value {
  return new Map<string, Value>([
    ['started', status.transactionId !== null],
    ['committed', status.committed === true],
    ['transactionId', status.transactionId],
    ['errorMessage', status.error],
  ])
}

/**
 * What ON ERROR CONTINUE|BREAK absorbs: a failure of the batch's own work (a runtime error, a constraint its
 * commit breaks). Budget and limit refusals, and failures that are no Cypher error (storage faults), still fail
 * the query.
 */
function recoverable(error: unknown): boolean {
  return error instanceof CypherError && error.phase === 'runtime'
}

function addInto(total: MutationSummary, batch: MutationSummary): void {
  for (const key of Object.keys(total) as (keyof MutationSummary)[]) total[key] += batch[key]
}
