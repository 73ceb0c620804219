import type { Eval } from '../compile-expr.js'
import { CypherError } from '../errors.js'
import type { ExecContext, RowCounter } from '../executor/context.js'
import type { Value } from '../values.js'
import { type CsvImportPolicy, resolveCsvLocation } from './location.js'
import { readCsv } from './reader.js'

/** A compiled `LOAD CSV [WITH HEADERS] FROM url AS variable [FIELDTERMINATOR t]`, the first clause of a query. */
export interface CsvSourcePlan {
  url: Eval
  /** The slot `variable` lives in. */
  slot: number
  headers: boolean
  delimiter: string
  /** How each row counts against the budgets (loaded, or scanned when an aggregation consumes it). */
  count: RowCounter
}

/** Where LOAD CSV is in its file: what `file()` and `linenumber()` answer. */
export interface CsvPosition {
  file: string
  line: number
}

/** One row of the file: the variable's value (a list of strings, or a map by header) and its position. */
export interface CsvRow {
  value: Value
  position: CsvPosition
}

/**
 * The rows of the source, read as they are asked for. `ctx` evaluates the URL (parameters may name it) and
 * carries the abort signal; the caller counts and runs each row.
 */
export async function* csvRows(
  source: CsvSourcePlan,
  ctx: ExecContext,
  blank: Value[],
  policy: CsvImportPolicy,
): AsyncGenerator<CsvRow> {
  const url = source.url(blank, ctx)
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
