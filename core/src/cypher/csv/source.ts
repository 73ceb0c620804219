import type { Eval } from '../compile-expr.js'
import { CypherError } from '../errors.js'
import {
  chain,
  type ExecContext,
  type Row,
  type RowCounter,
  type StageFactory,
  tick,
} from '../executor/context.js'
import type { Value } from '../values.js'
import { type CsvImportPolicy, resolveCsvLocation } from './location.js'
import type { CsvPosition } from './position.js'
import { readCsvRuns } from './reader.js'

/** A compiled `[reads] LOAD CSV [WITH HEADERS] FROM url AS variable [FIELDTERMINATOR t]`. */
export interface CsvSourcePlan {
  /** The reads before LOAD CSV: each row they give is joined with every row of the file its URL names. */
  before: StageFactory[]
  url: Eval
  /** The slot `variable` lives in. */
  slot: number
  headers: boolean
  delimiter: string
  /** How each row counts against the budgets (loaded, or scanned when an aggregation consumes it). */
  count: RowCounter
}

/** One row of the file: the variable's value (a list of strings, or a map by header) and its position. */
export interface CsvRow {
  value: Value
  position: CsvPosition
}

/** A row for the clauses after LOAD CSV (the variable set), and where in which file it was read. */
export interface LoadedRow {
  row: Row
  position: CsvPosition
}

/**
 * The rows LOAD CSV gives, read as they are asked for, in runs (a run per chunk of the file, to be taken
 * whole before the next is asked for): for each row of the reads before it (one empty row when there are
 * none), every row of the file its URL names, counted against the budgets and the clock as it is taken.
 */
export async function* loadCsvRuns(
  source: CsvSourcePlan,
  ctx: ExecContext,
  blank: Row,
  policy: CsvImportPolicy,
): AsyncGenerator<Iterable<LoadedRow>> {
  const inputs: Row[] = []
  const head = chain(source.before, ctx, {
    push: (row) => inputs.push(row) > 0,
    finish() {},
  })
  head.push(blank)
  head.finish()
  for (const input of inputs) {
    for await (const run of csvRowRuns(source, ctx, input, policy)) yield loadedRows(source, ctx, input, run)
  }
}

/** A run's rows as the caller takes them, each counted against the budgets and the clock when it is taken. */
function* loadedRows(
  source: CsvSourcePlan,
  ctx: ExecContext,
  input: Row,
  run: CsvRow[],
): Iterable<LoadedRow> {
  for (const { value, position } of run) {
    source.count(ctx)
    tick(ctx)
    const row = input.slice()
    row[source.slot] = value
    yield { row, position }
  }
}

/**
 * The rows of the source in runs, read as they are asked for. `ctx` evaluates the URL (parameters may name
 * it) and carries the abort signal; the caller counts and runs each row.
 */
export async function* csvRowRuns(
  source: CsvSourcePlan,
  ctx: ExecContext,
  input: Row,
  policy: CsvImportPolicy,
): AsyncGenerator<CsvRow[]> {
  const url = source.url(input, ctx)
  if (typeof url !== 'string')
    throw new CypherError('INVALID_ARGUMENT_TYPE', 'LOAD CSV FROM needs a string URL', 'runtime')
  const location = await resolveCsvLocation(url, policy)
  let header: string[] | undefined
  for await (const records of readCsvRuns(location, { delimiter: source.delimiter, signal: ctx.signal })) {
    const run: CsvRow[] = []
    for (const record of records) {
      const position = { file: url, line: record.line }
      if (!source.headers) {
        run.push({ value: record.fields, position })
        continue
      }
      if (header === undefined) {
        header = record.fields.map((name) => name ?? '')
        continue
      }
      // Neo4j: a missing trailing field is null, a field past the headers is dropped.
      const map = new Map<string, Value>()
      for (let i = 0; i < header.length; i++) map.set(header[i] as string, record.fields[i] ?? null)
      run.push({ value: map, position })
    }
    if (run.length > 0) yield run
  }
}
