import { budgetError } from '../errors.js'
import type { ExecContext } from '../executor/context.js'
import type { CsvPlan } from '../plan.js'
import type { Value } from '../values.js'
import type { CsvImportPolicy } from './location.js'
import { loadCsvRuns } from './source.js'

/**
 * Runs a query that starts with LOAD CSV in one transaction (or on the graph, for a read): each file row is
 * pushed through the rest of the query as it is read; the result rows are collected under the returned-rows
 * budget. A LIMIT that is satisfied stops the reading (the file is closed).
 */
export async function collectCsv(
  csv: CsvPlan,
  ctx: ExecContext,
  policy: CsvImportPolicy,
  maxReturned: number,
): Promise<Value[][]> {
  const rows: Value[][] = []
  const head = csv.open(ctx, (values) => {
    rows.push(values)
    if (rows.length > maxReturned) throw budgetError('returned_records', rows.length, maxReturned)
    return true
  })
  try {
    reading: for await (const run of loadCsvRuns(csv.source, ctx, csv.blankRow(), policy)) {
      for (const { row, position } of run) {
        ctx.csv = position
        if (!head.push(row)) break reading
      }
    }
    head.finish()
  } finally {
    ctx.csv = undefined
  }
  return rows
}
