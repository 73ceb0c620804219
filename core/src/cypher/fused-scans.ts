import type { Diagnostics } from './analyzer.js'
import { exprKey, freeVariables, type Scope } from './analyzer.js'
import type { Clause, Expr, ProjectionItem } from './ast.js'
import type { ExprEnv, ExpressionCompiler } from './compile-expr.js'
import { columnTestShape } from './executor/column-test.js'
import type { Row, StageFactory } from './executor/context.js'
import { countStoreShape, countStoreStage } from './executor/count-store.js'
import { compileMatch } from './executor/match.js'
import { compileProjection, countOf, type ProjectionEnv } from './executor/projection.js'
import { type ScanFilter, scanAggregateShape } from './executor/scan-aggregate.js'
import { conjunctsOf, type ScanTopKShape, scanTopKShape, scanTopKStage } from './executor/scan-topk.js'

/** What a clause compiles to. */
export interface ClauseResult {
  factories: StageFactory[]
  scope: Scope
  columns?: { name: string; slot: number }[]
  /** The clause after this one was compiled into it (a fused scan-aggregate). */
  fused?: boolean
}

/** The plan builder as the fused scan paths use it. */
export interface FusedEnv extends ProjectionEnv, ExprEnv {
  readonly exprs: ExpressionCompiler
  readonly diagnostics: Diagnostics
  readonly explain: string[]
  allocSlot(): number
  blankRow(): Row
}

// Read-only shapes compiled into one operator over a label's property columns instead of the row pipeline.

/**
 * `MATCH (v:Label)` followed by a grouping WITH/RETURN over v's properties: one fused scan-aggregate
 * operator for both clauses (reads only). Undefined when the shape does not fit.
 */
export function fusedScanAggregate(
  env: FusedEnv,
  clause: Clause,
  following: Clause | undefined,
  scope: Scope,
  checkFollowing: () => void,
): ClauseResult | undefined {
  if (following?.kind !== 'with' && following?.kind !== 'return') return undefined
  const shape = scanAggregateShape(clause, following.projection)
  if (shape === undefined || clause.kind !== 'match' || scope.has(shape.variable)) return undefined
  const compiled = compileMatch(env, clause.pattern, clause.where, scope, {
    countLoaded: true,
    optional: clause.optional,
  })
  env.explain.push(...compiled.plan, 'ScanAggregate')
  checkFollowing()
  const nodeSlot = compiled.scope.get(shape.variable)?.slot as number
  const filter = clause.where && scanFilter(env, clause.where, shape.variable, shape.props, compiled.scope)
  const projection = compileProjection(
    env,
    following.projection,
    compiled.scope,
    following.kind,
    following.kind === 'with' ? following.where : undefined,
    following.start,
    { shape, nodeSlot, filter },
  )
  return {
    factories: projection.factories,
    scope: projection.scope,
    ...(following.kind === 'return' ? { columns: projection.columns } : {}),
    fused: true,
  }
}

/**
 * A leading `MATCH (v:Label) [WHERE …]` and a final `RETURN … ORDER BY … LIMIT` over v's properties: one
 * fused scan + filter + top-k operator over the label's property columns (reads only).
 */
export function fusedScanTopK(
  env: FusedEnv,
  clause: Clause,
  following: Clause | undefined,
  scope: Scope,
  checkFollowing: () => void,
): ClauseResult | undefined {
  const shape = scanTopKShape(clause, following)
  if (shape === undefined || clause.kind !== 'match' || following?.kind !== 'return') return undefined
  const errors = env.diagnostics.errors.length
  const compiled = compileMatch(env, clause.pattern, clause.where, scope, {
    countLoaded: true,
    optional: false,
  })
  checkFollowing()
  const projection = compileProjection(
    env,
    following.projection,
    compiled.scope,
    'return',
    undefined,
    following.start,
  )
  // Compile errors are reported by the general compilation above; only a clean query is fused.
  if (env.diagnostics.errors.length > errors) return { factories: [], scope: projection.scope, fused: true }
  env.explain.push(...compiled.plan, 'ScanTopK')
  const nodeSlot = compiled.scope.get(shape.variable)?.slot as number
  const exprs = env.exprs
  const {
    propSlots: keySlots,
    before,
    where,
    substitutions,
    conjuncts,
  } = scanFilter(env, clause.where, shape.variable, shape.keys, compiled.scope)
  const columnTests = conjuncts.map((conjunct) => {
    const test = columnTestShape(conjunct, shape.variable, shape.keys)
    return test && { shape: test, constant: exprs.compile(test.constant, compiled.scope) }
  })
  exprs.substitutions = substitutions
  const items = following.projection.items.map((item, i) => ({
    slot: (projection.columns[i] as { slot: number }).slot,
    value: exprs.compile(item.expr, compiled.scope),
  }))
  // ORDER BY sees the projected names and the incoming ones, and names projected expressions by their text.
  const sortScope = compiled.scope.copy()
  for (const [name, binding] of projection.scope.entries()) sortScope.define(name, binding)
  following.projection.items.forEach((item, i) => {
    substitutions.set(exprKey(item.expr), items[i]?.slot as number)
  })
  const sortKeys = following.projection.orderBy.map((sort) => exprs.compile(sort.expr, sortScope))
  exprs.substitutions = undefined
  const projectionClause = following.projection
  const stage = scanTopKStage({
    shape,
    nodeSlot,
    keySlots,
    before,
    where,
    items,
    sortKeys,
    directions: projectionClause.orderBy.map((sort) => (sort.descending ? -1 : 1)),
    sortColumns: projectionClause.orderBy.map((sort) => sortColumn(sort.expr, shape, projectionClause.items)),
    pureItems: projectionClause.items.every(
      (item) => item.expr.kind === 'literal' || propertyKey(item.expr, shape.variable) !== undefined,
    ),
    columnTests,
    skip: projectionClause.skip ? countOf(env, projectionClause.skip, 'SKIP') : undefined,
    limit: countOf(env, projectionClause.limit as Expr, 'LIMIT'),
    blankRow: () => env.blankRow(),
  })
  return { factories: [stage], scope: projection.scope, columns: projection.columns, fused: true }
}

/** The key of `expr` when it reads a property of `variable`, else undefined. */
function propertyKey(expr: Expr, variable: string): string | undefined {
  return expr.kind === 'prop' && expr.target.kind === 'var' && expr.target.name === variable
    ? expr.key
    : undefined
}

/**
 * The index in `shape.keys` of the property a sort key reads when it is nothing more than that read: `v.key`
 * (v not shadowed by an alias) or the alias of an item that is.
 */
function sortColumn(expr: Expr, shape: ScanTopKShape, items: ProjectionItem[]): number | undefined {
  let key = propertyKey(expr, shape.variable)
  if (key !== undefined && items.some((item) => item.alias === shape.variable)) return undefined
  if (expr.kind === 'var') {
    const item = items.find((candidate) => candidate.alias === expr.name)
    key = item && propertyKey(item.expr, shape.variable)
  }
  return key === undefined ? undefined : shape.keys.indexOf(key)
}

/**
 * Compiles a fused scan's WHERE to read `variable`'s properties `keys` from slots of their own (returned in
 * `propSlots`, with the substitutions that map each `variable.key` to its slot): conjuncts without the
 * variable apart, as the row pipeline checks them before scanning.
 */
function scanFilter(
  env: FusedEnv,
  where: Expr | undefined,
  variable: string,
  keys: string[],
  scope: Scope,
): ScanFilter & { substitutions: Map<string, number>; conjuncts: Expr[] } {
  const substitutions = new Map<string, number>()
  const propSlots = keys.map((key) => {
    const slot = env.allocSlot()
    const target: Expr = { kind: 'var', name: variable, start: 0, end: 0 }
    substitutions.set(exprKey({ kind: 'prop', target, key, start: 0, end: 0 }), slot)
    return slot
  })
  const conjuncts = where ? conjunctsOf(where) : []
  const mentions = (expr: Expr) => freeVariables(expr).has(variable)
  env.exprs.substitutions = substitutions
  const before = conjuncts.filter((c) => !mentions(c)).map((c) => env.exprs.compile(c, scope))
  const onVariable = conjuncts.filter(mentions)
  const filters = onVariable.map((c) => env.exprs.compile(c, scope))
  env.exprs.substitutions = undefined
  return { propSlots, before, where: filters, substitutions, conjuncts: onVariable }
}

/**
 * A leading `MATCH` whose only use is being counted (`RETURN count(n)`, `WITH count(*) AS c`): answered from
 * the store's counters. The projection reads the count from a hidden variable, so its names, aliases and
 * SKIP/LIMIT behave as the general path's would.
 */
export function fusedCountStore(
  env: FusedEnv,
  clause: Clause,
  following: Clause | undefined,
  scope: Scope,
  checkFollowing: () => void,
): ClauseResult | undefined {
  if (following?.kind !== 'with' && following?.kind !== 'return') return undefined
  const source = countStoreShape(clause, following.projection)
  if (source === undefined || clause.kind !== 'match') return undefined
  const errors = env.diagnostics.errors.length
  compileMatch(env, clause.pattern, undefined, scope, { countLoaded: false, optional: false })
  checkFollowing()
  const inner = scope.copy()
  const slot = env.allocSlot()
  inner.define(COUNT_VARIABLE, { slot, kind: 'value' })
  const projection = compileProjection(
    env,
    {
      ...following.projection,
      items: following.projection.items.map((item) => ({
        ...item,
        alias: item.alias ?? item.text,
        expr: { kind: 'var', name: COUNT_VARIABLE, start: item.start, end: item.end },
      })),
    },
    inner,
    following.kind,
    following.kind === 'with' ? following.where : undefined,
    following.start,
  )
  // Compile errors are reported by the compilation above; nothing runs.
  if (env.diagnostics.errors.length > errors) return { factories: [], scope: projection.scope, fused: true }
  env.explain.push(
    source.kind === 'relationships' || source.kind === 'type'
      ? 'RelationshipCountFromCountStore'
      : 'NodeCountFromCountStore',
  )
  return {
    factories: [countStoreStage(source, slot, () => env.blankRow()), ...projection.factories],
    scope: projection.scope,
    ...(following.kind === 'return' ? { columns: projection.columns } : {}),
    fused: true,
  }
}

/** Not a name a query can write: the lexer never yields a space inside an identifier. */
const COUNT_VARIABLE = ' count'
