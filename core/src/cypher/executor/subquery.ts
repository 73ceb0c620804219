import { isAggregateCall, Scope } from '../analyzer.js'
import { type Clause, type Expr, isWriteQuery, type Query } from '../ast.js'
import type { Eval } from '../compile-expr.js'
import { typeError } from '../errors.js'
import { typeName, type Value } from '../values.js'
import {
  chain,
  checkListSize,
  type ExecContext,
  type Row,
  rowByRow,
  type Stage,
  type StageFactory,
} from './context.js'
import type { MatchEnv } from './match.js'
import { type CompiledUnion, runUnion } from './union.js'

/** The plan builder as subqueries use it. */
export interface SubqueryEnv extends MatchEnv {
  readonly text: string
  compileUnion(query: Query, scope: Scope, write: boolean, top: boolean, openEnd?: boolean): CompiledUnion
}

/**
 * `EXISTS { … }`, `COUNT { … }`, `COLLECT { … }`: the query runs per row with every outer variable in
 * scope. Without RETURN, EXISTS asks for a row and COUNT counts rows; COLLECT needs a RETURN of one column.
 */
export function compileSubqueryExpr(env: SubqueryEnv, expr: Expr & { kind: 'subquery' }, scope: Scope): Eval {
  if (isWriteQuery(expr.query)) {
    env.report(
      'INVALID_CLAUSE_COMPOSITION',
      `${expr.mode.toUpperCase()} subqueries cannot update the graph`,
      expr.start,
    )
  }
  const returns = expr.query.parts.every((part) => part.clauses[part.clauses.length - 1]?.kind === 'return')
  const union = env.compileUnion(keepOuterVariables(expr.query, scope.names()), scope, false, false, true)
  if (expr.mode === 'collect' && (!returns || union.columns.length !== 1)) {
    env.report('INVALID_CLAUSE_COMPOSITION', 'COLLECT subqueries must RETURN exactly one column', expr.start)
  }
  const rows = openRows(union)
  switch (expr.mode) {
    case 'exists':
      return (row, ctx) => {
        let found = false
        rows(ctx, row, () => {
          found = true
          return false
        })
        return found
      }
    case 'count':
      return (row, ctx) => {
        let count = 0n
        rows(ctx, row, () => {
          count++
          return true
        })
        return count
      }
    case 'collect':
      return (row, ctx) => {
        const out: Value[] = []
        rows(ctx, row, (values) => {
          out.push(values[0] ?? null)
          checkListSize(ctx, out.length)
          return true
        })
        return out
      }
  }
}

/**
 * In a subquery expression the outer variables stay visible through its WITH clauses (Neo4j 5: a leading
 * `WITH 'Ozzy' AS name` still sees the outer `person`): each WITH passes on the outer names it does not
 * project itself. They are one value per evaluation, so grouping and DISTINCT are unchanged.
 */
function keepOuterVariables(query: Query, outer: readonly string[]): Query {
  if (outer.length === 0) return query
  const keep = (clause: Clause): Clause => {
    if (clause.kind !== 'with' || clause.projection.star) return clause
    const projected = new Set(clause.projection.items.map((item) => item.alias ?? item.text))
    const added = outer
      .filter((name) => !projected.has(name))
      .map((name) => ({
        expr: { kind: 'var' as const, name, start: clause.start, end: clause.start },
        alias: name,
        text: name,
        start: clause.start,
        end: clause.start,
      }))
    return { ...clause, projection: { ...clause.projection, items: [...clause.projection.items, ...added] } }
  }
  return { ...query, parts: query.parts.map((part) => ({ ...part, clauses: part.clauses.map(keep) })) }
}

/** Runs a union and hands every row that reaches its end to `sink`, whether or not the part RETURNs. */
function openRows(
  union: CompiledUnion,
): (ctx: ExecContext, input: Row, sink: (values: Value[]) => boolean) => void {
  const open: CompiledUnion = { ...union, parts: union.parts.map((part) => ({ ...part, returns: true })) }
  return (ctx, input, sink) => runUnion(open, ctx, input, sink)
}

const keepGoing = (): boolean => true

/** The end of a FOREACH body: its rows are dropped (the body runs for its updates). */
const DISCARD: Stage = { push: () => true, finish() {} }

/** A compiled `CALL { … }`: how to join one incoming row to the subquery's rows. */
export interface SubqueryJoin {
  /** Calls `emit` with each joined row (the row itself once for a unit subquery); false when `emit` stopped. */
  join(row: Row, ctx: ExecContext, emit: (row: Row) => boolean): boolean
}

/**
 * `CALL { … }`, `CALL (x, y) { … }`, `CALL (*) { … }`, `OPTIONAL CALL …`: per incoming row, the subquery's
 * rows joined to it (a unit subquery, without RETURN, passes the row on once).
 */
export function compileSubqueryCall(
  env: SubqueryEnv,
  clause: Clause & { kind: 'subqueryCall' },
  scope: Scope,
  write: boolean,
): { factories: StageFactory[]; scope: Scope; join: SubqueryJoin; slots: number[] } {
  const inner = importedScope(env, clause, scope)
  const union = env.compileUnion(clause.query, inner, write, false)
  const returns = clause.query.parts.some((part) => part.clauses[part.clauses.length - 1]?.kind === 'return')
  const out = scope.copy()
  const slots: number[] = []
  if (returns) {
    for (const name of union.columns) {
      if (out.has(name)) {
        env.report('VARIABLE_ALREADY_BOUND', `variable '${name}' is already defined`, clause.start)
        continue
      }
      const slot = env.allocSlot()
      out.define(name, { slot, kind: 'value' })
      slots.push(slot)
    }
  }
  const optional = clause.optional
  const join: SubqueryJoin = {
    join(row, ctx, emit) {
      if (!returns) {
        runUnion(union, ctx, row, keepGoing)
        return emit(row)
      }
      const results: Row[] = []
      runUnion(union, ctx, row, (values) => {
        const joined = row.slice()
        for (let i = 0; i < slots.length; i++) joined[slots[i] as number] = values[i] ?? null
        results.push(joined)
        return true
      })
      if (results.length === 0 && optional) {
        const joined = row.slice()
        for (const slot of slots) joined[slot] = null
        return emit(joined)
      }
      for (const joined of results) if (!emit(joined)) return false
      return true
    },
  }
  const factory: StageFactory = (ctx, next) => ({
    push: (row) => join.join(row, ctx, (joined) => next.push(joined)),
    finish: () => next.finish(),
  })
  return { factories: [factory], scope: out, join, slots }
}

/** The variables a subquery sees: `(x, y)`, `(*)`, or for the WITH-importing form the outer ones (its WITH picks). */
function importedScope(env: SubqueryEnv, clause: Clause & { kind: 'subqueryCall' }, scope: Scope): Scope {
  if (clause.scope === '*') return scope
  if (clause.scope === undefined) {
    const importing = clause.query.parts.every((part) => part.clauses[0]?.kind === 'with')
    return importing ? scope : new Scope()
  }
  const inner = new Scope()
  for (const name of clause.scope) {
    const binding = scope.get(name)
    if (binding === undefined)
      env.report('UNDEFINED_VARIABLE', `variable '${name}' is not defined`, clause.start)
    else inner.define(name, binding)
  }
  return inner
}

/** `FOREACH (x IN list | …)`: the body runs once per element, for its side effects; the row passes on. */
export function compileForeach(
  env: SubqueryEnv,
  clause: Clause & { kind: 'foreach' },
  scope: Scope,
  buildBody: (body: Clause[], scope: Scope) => StageFactory[],
): { factories: StageFactory[]; scope: Scope } {
  if (isAggregateCall(clause.list))
    env.report('INVALID_AGGREGATION', 'FOREACH cannot aggregate', clause.list.start)
  const list = env.exprs.compile(clause.list, scope)
  const slot = env.allocSlot()
  const body = buildBody(clause.body, scope.with(clause.variable, { slot, kind: 'value' }))
  // A body whose stages hold nothing between rows is built once per run, not once per item.
  const keep = body.every((factory) => factory.rowByRow === true)
  const factory: StageFactory = (ctx, next) => {
    let kept: Stage | undefined
    return {
      push(row) {
        const items = list(row, ctx)
        if (items !== null) {
          if (!Array.isArray(items)) throw typeError(`FOREACH expects a list, got ${typeName(items)}`)
          for (const item of items) {
            const inner = row.slice()
            inner[slot] = item
            const head = kept ?? chain(body, ctx, DISCARD)
            if (keep) kept = head
            head.push(inner)
            head.finish()
          }
        }
        return next.push(row)
      },
      finish: () => next.finish(),
    }
  }
  return { factories: [keep ? rowByRow(factory) : factory], scope }
}
