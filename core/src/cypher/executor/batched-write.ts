import type { CommitRecord } from '../../graph/commit.js'
import type { GraphStore } from '../../graph/store.js'
import type { Transaction } from '../../graph/transaction.js'
import type { GraphReader } from '../../graph/types.js'
import { budgetError } from '../errors.js'
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
 * clauses after the CALL run over the joined rows in a last transaction. A failing batch fails the query; the
 * batches before it stay committed (Neo4j's ON ERROR FAIL). Mutation counts add up across the transactions.
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
  for (let from = 0; from < inputs.length; from += size) {
    const tx = store.begin()
    const ctx = host.context(tx, tx, stats)
    for (const row of inputs.slice(from, from + size))
      batched.join.join(row, ctx, (out) => joined.push(out) > 0)
    await commit(tx)
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
