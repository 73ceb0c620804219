import { checkComposition, children, Diagnostics, isAggregateCall, Scope } from './analyzer.js'
import {
  type Clause,
  type Expr,
  isWriteQuery,
  type PatternPart,
  type Query,
  type SingleQuery,
} from './ast.js'
import { type ClauseEnv, planClause } from './clause-planner.js'
import { type Eval, ExpressionCompiler, type Matcher } from './compile-expr.js'
import { compileSingleWrite } from './compiled-write/index.js'
import type { CsvSourcePlan } from './csv/source.js'
import { needsEager } from './eagerness.js'
import { runtimeError } from './errors.js'
import {
  type ExecContext,
  load,
  type Row,
  type RowCounter,
  type StageFactory,
  scan,
} from './executor/context.js'
import { compileMatch } from './executor/match.js'
import { countOf } from './executor/projection.js'
import { compileSubqueryCall, compileSubqueryExpr } from './executor/subquery.js'
import { type CompiledPart, type CompiledUnion, openPart, runUnion } from './executor/union.js'
import {
  type ClauseResult,
  type FusedEnv,
  fusedCountStore,
  fusedScanAggregate,
  fusedScanTopK,
} from './fused-scans.js'
import { parseQuery } from './parser.js'
import type { BatchedPlan, Plan, PlanOperator, PlanOptions, PlanOutcome, StreamPlan } from './plan.js'
import { builtinRegistry } from './procedures/index.js'
import type { ProcedureRegistry } from './procedures/registry.js'
import { eager } from './stages.js'
import type { Value } from './values.js'

/** Neo4j's operator names, by the clause an operator stands for. */
const OPERATOR_NAMES: Record<Clause['kind'], string> = {
  match: 'Match',
  unwind: 'Unwind',
  with: 'Projection',
  return: 'ProduceResults',
  create: 'Create',
  merge: 'Merge',
  set: 'SetProperty',
  remove: 'RemoveProperty',
  delete: 'Delete',
  call: 'ProcedureCall',
  subqueryCall: 'SubqueryForeach',
  foreach: 'Foreach',
  loadCsv: 'LoadCSV',
  finish: 'EmptyResult',
  schema: 'SchemaCommand',
}

/** A standalone `ORDER BY` / `SKIP` / `LIMIT` (parsed as `WITH *` with only that tail). */
const isSortTail = (clause: Clause): boolean =>
  clause.kind === 'with' &&
  clause.projection.star &&
  clause.projection.items.length === 0 &&
  !clause.projection.distinct &&
  clause.where === undefined

/** Rows a `CALL { … } IN TRANSACTIONS` batch holds without `OF n ROWS` (Neo4j's default). */
const DEFAULT_BATCH_ROWS = 1000

/** Parses, analyses and plans `text`. Throws CypherError on parse failures and unsupported syntax. */
export function planQuery(text: string, options: PlanOptions): PlanOutcome {
  const query = parseQuery(text, { maxExpressionDepth: options.maxExpressionDepth })
  const builder = new PlanBuilder(text, options)
  const plan = builder.build(query)
  return {
    plan: builder.diagnostics.errors.length > 0 ? undefined : plan,
    errors: builder.diagnostics.errors,
  }
}

class PlanBuilder implements FusedEnv, ClauseEnv {
  slotCount = 0
  readonly exprs: ExpressionCompiler
  readonly diagnostics: Diagnostics
  readonly maxHops: number
  readonly explain: string[] = []
  readonly procedures: ProcedureRegistry
  private readonly implicitParams = new Set<string>()
  /** Procedure modes the query calls, for the query type. */
  readonly calledModes = new Set<string>()
  /** Set for EXPLAIN/PROFILE: the operators of the top-level pipeline, in order. */
  private operators: PlanOperator[] | undefined
  /** Set while the query after a leading LOAD CSV compiles: its first clause gets rows, not one empty row. */
  private csvLeads = false
  /** How the clause being compiled counts its rows (see feedsAggregation). */
  rowCounter: RowCounter = load

  constructor(
    readonly text: string,
    options: PlanOptions,
  ) {
    this.diagnostics = new Diagnostics(text, options.collectErrors)
    this.maxHops = options.maxVariableLengthHops
    this.exprs = new ExpressionCompiler(this)
    this.procedures = options.procedures ?? builtinRegistry()
  }

  allocSlot(): number {
    return this.slotCount++
  }

  report(code: string, message: string, at: number): void {
    this.diagnostics.report(code, message, at)
  }

  implicitParam(name: string): void {
    this.implicitParams.add(name)
  }

  blankRow(): Row {
    return new Array<Value>(this.slotCount).fill(null)
  }

  pattern(part: PatternPart, where: Expr | undefined, scope: Scope): { matcher: Matcher; scope: Scope } {
    const compiled = compileMatch(this, [part], where, scope, { countLoaded: false, optional: false })
    return { matcher: compiled.matcher, scope: compiled.scope }
  }

  subquery(expr: Expr & { kind: 'subquery' }, scope: Scope): Eval {
    return compileSubqueryExpr(this, expr, scope)
  }

  /** True when a procedure the query calls (at any depth) writes. */
  private callsWrite(node: unknown): boolean {
    if (Array.isArray(node)) return node.some((item) => this.callsWrite(item))
    if (node === null || typeof node !== 'object') return false
    const record = node as Record<string, unknown>
    if (record.kind === 'call' && typeof record.procedure === 'string') {
      const mode = this.procedures.get(record.procedure)?.mode
      if (mode !== undefined) this.calledModes.add(mode)
      if (mode === 'WRITE') return true
    }
    return Object.keys(record).some((key) => key !== 'start' && key !== 'end' && this.callsWrite(record[key]))
  }

  build(query: Query): Plan {
    if (query.explain !== undefined) this.operators = []
    const write = this.callsWrite(query.parts) || isWriteQuery(query)
    const clauses = query.parts.length === 1 ? (query.parts[0]?.clauses ?? []) : []
    const batchedAt = clauses.findIndex(
      (clause) => clause.kind === 'subqueryCall' && clause.batch !== undefined,
    )
    const batched = batchedAt >= 0 && write ? this.buildBatched(clauses, batchedAt) : undefined
    const schema =
      clauses.length === 1 && clauses[0]?.kind === 'schema' ? this.buildSchema(clauses[0]) : undefined
    const csvAt = batched ? -1 : clauses.findIndex((clause) => clause.kind === 'loadCsv')
    const leading = csvAt >= 0 ? this.loadCsv(clauses, csvAt) : undefined
    const union: CompiledUnion =
      batched || schema
        ? { parts: [], columns: batched?.columns ?? [], distinct: false }
        : leading
          ? this.compileUnion(
              {
                parts: [{ ...(query.parts[0] as SingleQuery), clauses: clauses.slice(csvAt + 1) }],
                unionAll: [],
              },
              leading.scope,
              write,
              true,
            )
          : this.compileUnion(query, new Scope(), write, true)
    this.csvLeads = false
    const params = [...new Set([...collectParams(query), ...this.implicitParams])]
    const explain = this.explain
    const blank = () => this.blankRow()
    const reads = query.parts.some((part) =>
      part.clauses.some((clause) => clause.kind === 'match' || clause.kind === 'call'),
    )
    const queryType: Plan['queryType'] =
      schema !== undefined || (this.calledModes.has('SCHEMA') && !write)
        ? 's'
        : write
          ? reads
            ? 'rw'
            : 'w'
          : 'r'
    const single = union.parts.length === 1 ? union.parts[0] : undefined
    const stream: StreamPlan | undefined =
      single?.streams === true && !leading && !write && query.explain === undefined && single.returns
        ? { factories: single.factories, slots: single.slots, blankRow: blank }
        : undefined
    return {
      columns: union.columns,
      isWrite: write || schema !== undefined,
      stream,
      operators: this.operators ?? [],
      params,
      explain,
      mode: query.explain,
      use: query.use,
      queryType,
      batched: batched?.plan,
      csv:
        leading && single
          ? { source: leading.source, open: (ctx, sink) => openPart(single, ctx, sink), blankRow: blank }
          : undefined,
      schema,
      compiled: write ? compileSingleWrite(query) : undefined,
      run(ctx, sink) {
        if (batched || schema || leading)
          throw new Error('batched, LOAD CSV and schema plans run through the engine')
        runUnion(union, ctx, blank(), (values) => sink(values))
      },
    }
  }

  /**
   * The LOAD CSV at `at` of `clauses`: the reads before it (each row they give names a file by the URL), the
   * source, and the scope the clauses after it compile in. Those must not fuse a scan or stand alone: they run
   * once per file row.
   */
  private loadCsv(clauses: Clause[], at: number): { source: CsvSourcePlan; scope: Scope } {
    const clause = clauses[at] as Clause & { kind: 'loadCsv' }
    if (at === clauses.length - 1)
      this.report('INVALID_CLAUSE_COMPOSITION', 'a query cannot end with LOAD CSV', clause.start)
    const reads = this.readsBefore(clauses.slice(0, at), 'LOAD CSV', clause.start, new Scope())
    const scope = reads.scope
    const url = this.exprs.compile(clause.url, scope)
    const slot = this.allocSlot()
    this.csvLeads = true
    this.operators?.push(this.operatorOf(clause, OPERATOR_NAMES.loadCsv))
    const source: CsvSourcePlan = {
      before: reads.factories,
      url,
      slot,
      headers: clause.headers,
      delimiter: clause.terminator ?? ',',
      count: feedsAggregation(clauses, at) ? scan : load,
    }
    if (scope.has(clause.variable))
      this.report('VARIABLE_ALREADY_BOUND', `variable '${clause.variable}' is already defined`, clause.start)
    return { source, scope: scope.with(clause.variable, { slot, kind: 'value' }) }
  }

  /** A schema command: a query of its own; its OPTIONS map is constant. */
  private buildSchema(clause: Clause & { kind: 'schema' }): Plan['schema'] {
    const command = clause.command
    const options =
      command.action === 'create' && command.options
        ? this.exprs.compile(command.options, new Scope())
        : undefined
    const blank = () => this.blankRow()
    return { command, options: (ctx) => (options ? options(blank(), ctx) : null) }
  }

  /** An explained operator: its name and the clause's text (shortened). */
  private operatorOf(clause: Clause, operator: string): PlanOperator {
    const text = this.text.slice(clause.start, clause.end)
    return { operator, details: text.length > 120 ? `${text.slice(0, 117)}...` : text }
  }

  /** Names the clause as an operator and counts the rows it emits (into ctx.profileRows, when set). */
  private profiled(clause: Clause, result: ClauseResult): StageFactory {
    const operators = this.operators as PlanOperator[]
    const index = operators.length
    operators.push(this.operatorOf(clause, result.fused ? 'FusedScan' : OPERATOR_NAMES[clause.kind]))
    return (ctx, next) => ({
      push(row) {
        if (ctx.profileRows) ctx.profileRows[index] = (ctx.profileRows[index] ?? 0) + 1
        return next.push(row)
      },
      finish: () => next.finish(),
    })
  }

  /** The clauses before `what` (LOAD CSV, a batched CALL), which feed it rows: they may only read. */
  private readsBefore(
    clauses: Clause[],
    what: string,
    at: number,
    scope: Scope,
  ): { factories: StageFactory[]; scope: Scope } {
    if (clauses.length === 0) return { factories: [], scope }
    const span = (list: Clause[]) => ({ start: list[0]?.start ?? 0, end: list[list.length - 1]?.end ?? 0 })
    if (
      clauses.some((clause) =>
        isWriteQuery({ parts: [{ clauses: [clause], ...span([clause]) }], unionAll: [] }),
      )
    )
      this.report('INVALID_CLAUSE_COMPOSITION', `the clauses before ${what} cannot write`, at)
    const part = this.buildSingle({ clauses, ...span(clauses) }, false, scope, false, true)
    return { factories: part.factories, scope: part.scope }
  }

  /** `… CALL { … } IN TRANSACTIONS …` at `at`: the reads before, the subquery, the clauses after. */
  private buildBatched(clauses: Clause[], at: number): { plan: BatchedPlan; columns: string[] } {
    const call = clauses[at] as Clause & { kind: 'subqueryCall' }
    let before = clauses.slice(0, at)
    const after = clauses.slice(at + 1)
    const span = (list: Clause[]) => ({ start: list[0]?.start ?? 0, end: list[list.length - 1]?.end ?? 0 })
    let scope = new Scope()
    let csv: CsvSourcePlan | undefined
    const csvAt = before.findIndex((clause) => clause.kind === 'loadCsv')
    if (csvAt >= 0) {
      const leading = this.loadCsv(clauses, csvAt)
      // The file's rows pass on into batches, held a batch at a time: work (scanned), not a result's rows.
      csv = { ...leading.source, count: scan }
      scope = leading.scope
      before = before.slice(csvAt + 1)
    }
    const reads = this.readsBefore(before, 'CALL { … } IN TRANSACTIONS', call.start, scope)
    const prefix = reads.factories
    scope = reads.scope
    this.csvLeads = false
    const compiled = compileSubqueryCall(this, call, scope, true)
    let statusSlot: number | undefined
    if (call.reportStatus !== undefined) {
      if (compiled.scope.has(call.reportStatus))
        this.report(
          'VARIABLE_ALREADY_BOUND',
          `variable '${call.reportStatus}' is already defined`,
          call.start,
        )
      statusSlot = this.allocSlot()
      compiled.scope.define(call.reportStatus, { slot: statusSlot, kind: 'value' })
    }
    const batch = call.batch
    const size =
      batch === undefined || batch === 'default'
        ? () => DEFAULT_BATCH_ROWS
        : countOf(this, batch, 'IN TRANSACTIONS OF … ROWS')
    let suffix: StageFactory[] = []
    let columns: string[] = []
    let slots: number[] = []
    let returns = false
    if (after.length > 0) {
      const single = { clauses: after, ...span(after) }
      const part = this.buildSingle(
        single,
        isWriteQuery({ parts: [single], unionAll: [] }),
        compiled.scope,
        false,
        false,
      )
      suffix = part.factories
      columns = part.columns
      slots = part.slots
      returns = part.returns
    }
    const batchSize = (row: Row, ctx: ExecContext): number => {
      const n = size(row, ctx)
      if (n < 1)
        throw runtimeError('INVALID_ARGUMENT_VALUE', 'IN TRANSACTIONS OF … ROWS needs at least one row')
      return n
    }
    const blankRow = () => this.blankRow()
    const plan: BatchedPlan = {
      csv,
      prefix,
      join: compiled.join,
      batchSize,
      onError: call.onError ?? 'fail',
      returnSlots: compiled.slots,
      statusSlot,
      suffix,
      slots,
      returns,
      blankRow,
    }
    return { plan, columns }
  }

  /** Compiles a query (its UNION parts) with `scope` visible at its start. */
  compileUnion(query: Query, scope: Scope, write: boolean, top: boolean, openEnd = false): CompiledUnion {
    if (query.unionAll.length > 0 && new Set(query.unionAll).size > 1) {
      this.report(
        'INVALID_CLAUSE_COMPOSITION',
        'UNION and UNION ALL cannot be mixed',
        query.parts[1]?.start ?? 0,
      )
    }
    const parts = query.parts.map((part) => this.buildSingle(part, write, scope, top, openEnd))
    const columns = parts[0]?.columns ?? []
    for (const part of parts.slice(1)) {
      if (part.columns.join('\u0000') !== columns.join('\u0000')) {
        this.report('DIFFERENT_COLUMNS_IN_UNION', 'all parts of a UNION must return the same columns', 0)
      }
    }
    return { parts, columns, distinct: query.unionAll.length > 0 && !query.unionAll[0] }
  }

  private buildSingle(
    query: SingleQuery,
    write: boolean,
    initial: Scope,
    top: boolean,
    openEnd: boolean,
  ): CompiledPart & { scope: Scope; streams: boolean } {
    let scope = initial
    // A read at the top may stream: its first clause must be a resumable source, and no clause may hold rows.
    let streams = top && !write
    const factories: StageFactory[] = []
    let columns: string[] = []
    let slots: number[] = []
    const clauses = query.clauses
    // A standalone call may be followed by ORDER BY / SKIP / LIMIT alone (`SHOW INDEXES YIELD * ORDER BY name`).
    const tail = clauses.slice(1).every(isSortTail)
    const standalone =
      top &&
      !this.csvLeads &&
      tail &&
      (clauses[0]?.kind === 'call' || (clauses.length === 1 && clauses[0]?.kind === 'schema'))
    for (let index = 0; index < clauses.length; index++) {
      const clause = clauses[index] as Clause
      const endsStandalone = standalone && index > 0 && index === clauses.length - 1
      if (!(openEnd && index === clauses.length - 1) && !endsStandalone)
        checkComposition(clauses, index, this.diagnostics)
      const following = clauses[index + 1]
      const outer = this.rowCounter
      this.rowCounter = feedsAggregation(clauses, index) ? scan : load
      // Fused scans start from an empty row: only at the top of the outermost query.
      const fusable = top && !write && !this.csvLeads
      const result: ClauseResult & { streams?: boolean; resumable?: boolean } =
        (index === 0 && fusable
          ? fusedCountStore(this, clause, following, scope, () =>
              checkComposition(clauses, index + 1, this.diagnostics),
            )
          : undefined) ??
        (index === 0 && fusable
          ? fusedScanTopK(this, clause, following, scope, () =>
              checkComposition(clauses, index + 1, this.diagnostics),
            )
          : undefined) ??
        (fusable
          ? fusedScanAggregate(this, clause, following, scope, () =>
              checkComposition(clauses, index + 1, this.diagnostics),
            )
          : undefined) ??
        planClause(this, clause, scope, standalone, write, streams && index === 0)
      this.rowCounter = outer
      if (result.fused || result.streams !== true || (index === 0 && result.resumable !== true))
        streams = false
      if (result.fused) index++
      factories.push(...result.factories)
      if (top && this.operators !== undefined) factories.push(this.profiled(clause, result))
      scope = result.scope
      if (result.columns) {
        columns = result.columns.map((column) => column.name)
        slots = result.columns.map((column) => column.slot)
      }
      // Writes see a stable input: the clause finishes before the next starts where that can matter.
      if (write && needsEager(clauses, index, (name) => scope.has(name))) factories.push(eager)
    }
    const last = clauses[clauses.length - 1]
    // After a sort tail the call's columns live in the tail's (WITH *) slots.
    if (standalone) slots = columns.map((name) => scope.get(name)?.slot ?? -1)
    return { factories, columns, slots, returns: last?.kind === 'return' || standalone, scope, streams }
  }
}

function collectParams(node: unknown, out: Set<string> = new Set()): string[] {
  if (Array.isArray(node)) for (const item of node) collectParams(item, out)
  else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>
    if (record.kind === 'param' && typeof record.name === 'string') out.add(record.name)
    for (const key of Object.keys(record)) collectParams(record[key], out)
  }
  return [...out]
}

/**
 * Whether the rows clause `index` produces reach an aggregating WITH/RETURN through reading clauses and
 * pass-through WITHs only:
 * then they are work (`scanned_records`), consumed as they come, not rows a result holds (`loaded_records`).
 */
function feedsAggregation(clauses: readonly Clause[], index: number): boolean {
  for (let j = index + 1; j < clauses.length; j++) {
    const clause = clauses[j] as Clause
    if (clause.kind === 'with' || clause.kind === 'return') {
      const projection = clause.projection
      if (projection.items.some((item) => aggregates(item.expr))) return true
      // A WITH that only renames and filters passes each row on as it comes; one that sorts, dedups or
      // pages holds them, and a RETURN hands them to the result.
      const passes =
        clause.kind === 'with' &&
        !projection.distinct &&
        projection.orderBy.length === 0 &&
        projection.skip === undefined &&
        projection.limit === undefined
      if (!passes) return false
      continue
    }
    if (clause.kind !== 'match' && clause.kind !== 'unwind' && clause.kind !== 'call') return false
  }
  return false
}

const aggregates = (expr: Expr): boolean => isAggregateCall(expr) || children(expr).some(aggregates)
