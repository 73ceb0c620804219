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
import { readCsv } from './reader.js'

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
 * The rows LOAD CSV gives, read as they are asked for: for each row of the reads before it (one empty row when
 * there are none), every row of the file its URL names, counted against the budgets and the clock.
 */
export async function* loadCsvRows(
  source: CsvSourcePlan,
  ctx: ExecContext,
  blank: Row,
  policy: CsvImportPolicy,
): AsyncGenerator<LoadedRow> {
  const inputs: Row[] = []
  const head = chain(source.before, ctx, {
    push: (row) => inputs.push(row) > 0,
    finish() {},
  })
  head.push(blank)
  head.finish()
  for (const input of inputs) {
    for await (const { value, position } of csvRows(source, ctx, input, policy)) {
      source.count(ctx)
      tick(ctx)
      const row = input.slice()
      row[source.slot] = value
      yield { row, position }
    }
  }
}

/**
 * The rows of the source, read as they are asked for. `ctx` evaluates the URL (parameters may name it) and
 * carries the abort signal; the caller counts and runs each row.
 */
export async function* csvRows(
  source: CsvSourcePlan,
  ctx: ExecContext,
  input: Row,
  policy: CsvImportPolicy,
): AsyncGenerator<CsvRow> {
  const url = source.url(input, ctx)
  if (typeof url !== 'string')
    throw new CypherError('INVALID_ARGUMENT_TYPE', 'LOAD CSV FROM needs a string URL', 'runtime')
  const location = await resolveCsvLocation(url, policy)
  let header: string[] | undefined
  for await (const record of readCsv(location, { delimiter: source.delimiter, signal: ctx.signal })) {
    const position = { file: url, line: record.line }
    if (!source.headers) {
      yield { value: record.fields, position }
      continue
    }
    if (header === undefined) {
      header = record.fields.map((name) => name ?? '')
      continue
    }
    // Neo4j: a missing trailing field is null, a field past the headers is dropped.
    const map = new Map<string, Value>()
    for (let i = 0; i < header.length; i++) map.set(header[i] as string, record.fields[i] ?? null)
    yield { value: map, position }
  }
}
