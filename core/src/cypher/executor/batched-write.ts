import type { CommitRecord } from '../../graph/commit.js'
import type { GraphStore } from '../../graph/store.js'
import type { Transaction } from '../../graph/transaction.js'
import type { GraphReader } from '../../graph/types.js'
import { budgetError, CypherError } from '../errors.js'
import type { BatchedPlan } from '../planner.js'
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
  const inputs: Row[] = []
  const reads = host.context(store, undefined, stats)
  const head = chain(batched.prefix, reads, collectInto(inputs))
  head.push(batched.blankRow())
  head.finish()
  const size = batched.batchSize(batched.blankRow(), reads)
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
  let broken = false
  for (let from = 0, batch = 1; from < inputs.length; from += size, batch++) {
    const rows = inputs.slice(from, from + size)
    if (broken) {
      for (const row of rows) joined.push(unjoined(row, { transactionId: null, error: null }))
      continue
    }
    const transactionId = `inner-transaction-${batch}`
    const tx = store.begin()
    const batchStats = emptySummary()
    const ctx = host.context(tx, tx, batchStats)
    const out: Row[] = []
    try {
      for (const row of rows) batched.join.join(row, ctx, (result) => out.push(result) > 0)
      await commit(tx)
    } catch (error) {
      if (batched.onError === 'fail' || !recoverable(error)) throw error
      // The transaction is dropped uncommitted: what the batch wrote is gone.
      for (const row of rows) joined.push(unjoined(row, { transactionId, error: (error as Error).message }))
      broken = batched.onError === 'break'
      continue
    }
    addInto(stats, batchStats)
    for (const row of out) joined.push(withStatus(row, { transactionId, error: null, committed: true }))
  }
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
