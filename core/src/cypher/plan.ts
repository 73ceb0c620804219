/**
 * The shapes a compiled query takes: the Plan the engine caches and runs, with its variants for LOAD CSV,
 * streaming cursors and CALL … IN TRANSACTIONS, and the planner's options and outcome. Kept apart from the
 * planner so the runners that consume a plan (engine, cursors, batched writes) depend on its shape, not on
 * the compiler that builds it.
 */
import type { SchemaCommand } from './ast.js'
import type { CompiledWrite } from './compiled-write/index.js'
import type { CsvSourcePlan } from './csv/source.js'
import type { CypherError } from './errors.js'
import type { ExecContext, Row, Stage, StageFactory } from './executor/context.js'
import type { SubqueryJoin } from './executor/subquery.js'
import type { ProcedureRegistry } from './procedures/registry.js'
import type { Value } from './values.js'
/** A compiled query: immutable, cached by query text, run many times with different parameters. */
export interface Plan {
  readonly columns: string[]
  readonly isWrite: boolean
  /** Parameters the query references (with those a `CALL name` without parentheses takes). */
  readonly params: string[]
  /** Operators chosen for each MATCH, for tests and diagnostics. */
  readonly explain: string[]
  /** With EXPLAIN/PROFILE: the top-level pipeline, a clause an operator; PROFILE counts the rows each emits. */
  readonly operators: PlanOperator[]
  /** `EXPLAIN` (plan only, no rows) or `PROFILE` (run and count rows) prefix. */
  readonly mode: 'explain' | 'profile' | undefined
  /** `USE name`: the workspace the query names. */
  readonly use: string | undefined
  /** Neo4j's query type: r (read), w (write only), rw (read and write), s (schema). */
  readonly queryType: 'r' | 'w' | 'rw' | 's'
  /** Set for a schema command (`CREATE INDEX …`, `DROP CONSTRAINT …`): the engine runs it against its schema. */
  readonly schema: { command: SchemaCommand; options: (ctx: ExecContext) => Value } | undefined
  /** Set for `… CALL { … } IN TRANSACTIONS …`: the engine runs it in batches, each batch its own commit. */
  readonly batched: BatchedPlan | undefined
  /** Set when the query starts with LOAD CSV: the engine feeds the file's rows (async) into `open`'s stage. */
  readonly csv: CsvPlan | undefined
  /** Set for a read whose rows pass through one by one from a resumable source: a cursor can stream it. */
  readonly stream: StreamPlan | undefined
  /** Set for a single write of a shape compiled-write/ recognises: the engine runs it instead of `run`. */
  readonly compiled: CompiledWrite | undefined
  /** Runs the query; `sink` receives each result row and returns false to stop. */
  run(ctx: ExecContext, sink: (values: Value[]) => boolean): void
}

/** `LOAD CSV … AS row <rest>`: the source, and the rest of the query as a stage each file row is pushed into. */
export interface CsvPlan {
  source: CsvSourcePlan
  /** The pipeline after LOAD CSV; `sink` receives each result row and returns false to stop. */
  open(ctx: ExecContext, sink: (values: Value[]) => boolean): Stage
  blankRow(): Row
}

/**
 * A read pipeline a cursor runs in slices (stream-cursor.ts): its first clause is a resumable source (a scan or
 * UNWIND, see executor/resumable.ts) and no stage after it holds rows (grouping, DISTINCT, ORDER BY).
 */
export interface StreamPlan {
  factories: StageFactory[]
  /** The result columns' slots. */
  slots: number[]
  blankRow(): Row
}

/**
 * `[reads] CALL { … } IN TRANSACTIONS [OF n ROWS] [rest]`: the reads before the CALL produce its input rows,
 * every `batchSize` of them run through the subquery in one transaction, and the rest of the query runs over
 * the joined rows at the end.
 */
export interface BatchedPlan {
  /** `LOAD CSV … AS row` as the first clause: its rows are the input of `prefix`, read as the batches go. */
  csv: CsvSourcePlan | undefined
  prefix: StageFactory[]
  join: SubqueryJoin
  batchSize(row: Row, ctx: ExecContext): number
  /** `ON ERROR`: a failed batch fails the query, or is rolled back and the run goes on (or stops) with nulls. */
  onError: 'continue' | 'break' | 'fail'
  /** The slots the subquery returns into: null in the rows of a batch that failed or never ran. */
  returnSlots: number[]
  /** `REPORT STATUS AS s`: the slot each row's status map goes to. */
  statusSlot: number | undefined
  suffix: StageFactory[]
  /** The result columns' slots, when the query returns rows. */
  slots: number[]
  returns: boolean
  blankRow(): Row
}

/** One operator of an explained plan; `rows` is what it emitted in a PROFILE run (ExecContext.profileRows). */
export interface PlanOperator {
  operator: string
  details: string
}

export interface PlanOptions {
  maxExpressionDepth: number
  maxVariableLengthHops: number
  /** Collect every compile error (validate mode) instead of stopping at the first. */
  collectErrors: boolean
  /** The procedures CALL can name; the built-ins when absent. */
  procedures?: ProcedureRegistry
}

export interface PlanOutcome {
  plan: Plan | undefined
  errors: CypherError[]
}
