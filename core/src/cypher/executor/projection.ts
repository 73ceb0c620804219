import {
  type Binding,
  children,
  exprKey,
  findAggregates,
  freeVariables,
  isAggregateCall,
  Scope,
  staticKind,
  type VarKind,
} from '../analyzer.js'
import type { Expr, Projection } from '../ast.js'
import type { Eval } from '../compile-expr.js'
import { runtimeError, typeError } from '../errors.js'
import { truth, typeName, type Value, valueKey } from '../values.js'
import { type AccumulatorFactory, accumulatorFor } from './aggregates.js'
import { type ExecContext, type Row, rowByRow, type Stage, type StageFactory } from './context.js'
import type { MatchEnv } from './match.js'
import { type ScanAggregateShape, type ScanFilter, scanAggregateStage } from './scan-aggregate.js'
import { TopK } from './top-k.js'

export interface ProjectionEnv extends MatchEnv {
  readonly text: string
  /** A row of nulls as wide as the finished plan. */
  blankRow(): Row
}

export interface CompiledProjection {
  factories: StageFactory[]
  scope: Scope
  columns: { name: string; slot: number }[]
  /** Rows pass through one by one (no grouping, DISTINCT or ORDER BY holds them): a streamed run may slice it. */
  streams: boolean
}

interface Item {
  name: string
  expr: Expr
  slot: number
  aggregates: Expr[]
}

/** Compiles WITH/RETURN: projection or grouping, DISTINCT, ORDER BY, SKIP, LIMIT and WITH's WHERE. */
export function compileProjection(
  env: ProjectionEnv,
  projection: Projection,
  input: Scope,
  clause: 'with' | 'return',
  where: Expr | undefined,
  at: number,
  fuse?: { shape: ScanAggregateShape; nodeSlot: number; filter: ScanFilter | undefined },
): CompiledProjection {
  const items: Item[] = []
  const seen = new Set<string>()
  const output = new Scope()
  const addItem = (name: string, expr: Expr, kind: VarKind): void => {
    if (seen.has(name)) env.report('COLUMN_NAME_CONFLICT', `column '${name}' is defined twice`, expr.start)
    seen.add(name)
    const slot = env.allocSlot()
    items.push({ name, expr, slot, aggregates: findAggregates(expr, env.text) })
    output.define(name, { slot, kind })
  }
  if (projection.star) {
    const names = input.names()
    if (names.length === 0 && projection.items.length === 0 && clause === 'return') {
      env.report('NO_VARIABLES_IN_SCOPE', `${clause.toUpperCase()} * has no variables in scope`, at)
    }
    for (const name of names)
      addItem(name, { kind: 'var', name, start: at, end: at }, (input.get(name) as Binding).kind)
  }
  for (const item of projection.items) {
    if (item.expr.kind === 'patternExists') {
      env.report(
        'CYPHER_SYNTAX_ERROR',
        'a pattern cannot be projected; use EXISTS { … } or COUNT { … }',
        item.start,
      )
    }
    let name = item.alias
    if (name === undefined) {
      if (item.expr.kind === 'var') name = item.expr.name
      // Neo4j names an unaliased map projection `n {.name}` after its variable.
      else if (item.expr.kind === 'mapProjection' && clause === 'return') name = item.expr.variable
      else {
        if (clause === 'with')
          env.report('NO_EXPRESSION_ALIAS', 'expressions in WITH must be aliased (use AS)', item.start)
        name = item.text
      }
    }
    addItem(name, item.expr, staticKind(item.expr, input))
  }
  const aggregating = items.some((item) => item.aggregates.length > 0)
  // Outside its aggregates, an aggregating expression may only use grouping keys that are variables
  // or property reads (`me.age`), or, in ORDER BY, projected names.
  const groupingKeys = new Set<string>()
  const groupingVars = new Set<string>()
  for (const item of items) {
    if (item.aggregates.length > 0) continue
    if (item.expr.kind === 'var') groupingVars.add(item.expr.name)
    if (item.expr.kind === 'var' || (item.expr.kind === 'prop' && item.expr.target.kind === 'var')) {
      groupingKeys.add(exprKey(item.expr))
    }
  }
  const checkAmbiguous = (expr: Expr, names: ReadonlySet<string>): void => {
    const name = ungroupedVariable(expr, groupingKeys, names, new Set())
    if (name !== undefined) {
      env.report(
        'AMBIGUOUS_AGGREGATION_EXPRESSION',
        `'${name}' must be a grouping key to be used beside an aggregate`,
        expr.start,
      )
    }
  }
  for (const item of items) if (item.aggregates.length > 0) checkAmbiguous(item.expr, groupingVars)
  if (aggregating) {
    const projected = new Set([...groupingVars, ...items.map((item) => item.name)])
    for (const sort of projection.orderBy) {
      if (
        findAggregates(sort.expr, env.text).length > 0 &&
        !items.some((item) => exprKey(item.expr) === exprKey(sort.expr))
      ) {
        checkAmbiguous(sort.expr, projected)
      }
    }
  }
  const factories: StageFactory[] = []
  const exprs = env.exprs

  if (aggregating && fuse !== undefined) {
    // The shape guarantees every item is a grouping key or one aggregate call, in item order.
    const keySlots = items.filter((item) => item.aggregates.length === 0).map((item) => item.slot)
    const aggSlots = items.filter((item) => item.aggregates.length > 0).map((item) => item.slot)
    factories.push(
      scanAggregateStage(fuse.shape, fuse.nodeSlot, keySlots, aggSlots, () => env.blankRow(), fuse.filter),
    )
  } else if (aggregating) factories.push(groupStage(env, items, input))
  else {
    const evals = items.map((item) => exprs.compile(item.expr, input))
    const slots = items.map((item) => item.slot)
    factories.push(
      rowByRow((_ctx, next) => ({
        push(row) {
          const out = row.slice()
          for (let i = 0; i < evals.length; i++) out[slots[i] as number] = (evals[i] as Eval)(row, _ctx)
          return next.push(out)
        },
        finish: () => next.finish(),
      })),
    )
  }
  if (projection.distinct) {
    const slots = items.map((item) => item.slot)
    factories.push((_ctx, next) => {
      const keys = new Set<string>()
      return {
        push(row) {
          let key = ''
          for (const slot of slots) key += `${valueKey(row[slot] as Value)}|`
          if (keys.has(key)) return true
          keys.add(key)
          return next.push(row)
        },
        finish: () => next.finish(),
      }
    })
  }
  const skip = projection.skip ? constantCount(env, projection.skip, 'SKIP') : undefined
  const limit = projection.limit ? constantCount(env, projection.limit, 'LIMIT') : undefined
  if (projection.orderBy.length > 0) {
    // ORDER BY sees the projected names, and also the incoming ones when rows were not merged.
    let sortScope = output
    if (!aggregating && !projection.distinct) {
      sortScope = input.copy()
      for (const [name, binding] of output.entries()) sortScope.define(name, binding)
    }
    exprs.substitutions = substitutionsFor(items)
    const keys = projection.orderBy.map((sort) => exprs.compile(sort.expr, sortScope))
    exprs.substitutions = undefined
    const directions = projection.orderBy.map((sort) => (sort.descending ? -1 : 1))
    factories.push(sortStage(keys, directions, limit && ((ctx) => rowsToKeep(env, ctx, skip, limit))))
  }
  if (projection.skip !== undefined || projection.limit !== undefined) {
    factories.push((ctx, next) => {
      const blank = env.blankRow()
      let toSkip = skip ? skip(blank, ctx) : 0
      const toTake = limit ? limit(blank, ctx) : Number.POSITIVE_INFINITY
      let taken = 0
      return {
        push(row) {
          if (toSkip > 0) {
            toSkip--
            return true
          }
          if (taken >= toTake) return false
          taken++
          return next.push(row) && taken < toTake
        },
        finish: () => next.finish(),
      }
    })
  }
  if (where !== undefined) {
    let whereScope = output
    if (!aggregating && !projection.distinct) {
      whereScope = input.copy()
      for (const [name, binding] of output.entries()) whereScope.define(name, binding)
    }
    exprs.substitutions = substitutionsFor(items)
    const pred = exprs.compile(where, whereScope)
    exprs.substitutions = undefined
    factories.push(
      rowByRow((ctx, next) => ({
        push: (row) => (truth(pred(row, ctx)) === true ? next.push(row) : true),
        finish: () => next.finish(),
      })),
    )
  }
  return {
    factories,
    scope: output,
    columns: items.map((item) => ({ name: item.name, slot: item.slot })),
    streams: !aggregating && !projection.distinct && projection.orderBy.length === 0,
  }
}

/** Projected expressions, so ORDER BY and WHERE can name them by their text (`ORDER BY n.name`). */
function substitutionsFor(items: Item[]): Map<string, number> {
  const substitutions = new Map<string, number>()
  for (const item of items) substitutions.set(exprKey(item.expr), item.slot)
  return substitutions
}

function ungroupedVariable(
  expr: Expr,
  keys: ReadonlySet<string>,
  names: ReadonlySet<string>,
  bound: ReadonlySet<string>,
): string | undefined {
  if (isAggregateCall(expr) || keys.has(exprKey(expr))) return undefined
  switch (expr.kind) {
    case 'var':
      return bound.has(expr.name) || names.has(expr.name) ? undefined : expr.name
    case 'listComp':
    case 'quantifier': {
      const inner = new Set(bound).add(expr.variable)
      return (
        ungroupedVariable(expr.source, keys, names, bound) ??
        (expr.where ? ungroupedVariable(expr.where, keys, names, inner) : undefined) ??
        (expr.kind === 'listComp' && expr.project
          ? ungroupedVariable(expr.project, keys, names, inner)
          : undefined)
      )
    }
    case 'reduce': {
      const inner = new Set(bound).add(expr.variable).add(expr.accumulator)
      return (
        ungroupedVariable(expr.init, keys, names, bound) ??
        ungroupedVariable(expr.source, keys, names, bound) ??
        ungroupedVariable(expr.expr, keys, names, inner)
      )
    }
    default:
      for (const child of children(expr)) {
        const name = ungroupedVariable(child, keys, names, bound)
        if (name !== undefined) return name
      }
      return undefined
  }
}

/** SKIP + LIMIT: how many sorted rows the LIMIT stage can let through. */
function rowsToKeep(
  env: ProjectionEnv,
  ctx: ExecContext,
  skip: ((row: Row, ctx: ExecContext) => number) | undefined,
  limit: (row: Row, ctx: ExecContext) => number,
): number {
  const blank = env.blankRow()
  return (skip ? skip(blank, ctx) : 0) + limit(blank, ctx)
}

/** SKIP/LIMIT take a constant non-negative integer (literal or parameter). */
function constantCount(env: ProjectionEnv, expr: Expr, what: string): (row: Row, ctx: ExecContext) => number {
  if (freeVariables(expr).size > 0) {
    env.report('NON_CONSTANT_EXPRESSION', `${what} must be a constant expression`, expr.start)
  }
  if (expr.kind === 'literal') {
    if (typeof expr.value === 'bigint' && expr.value < 0n) {
      env.report('NEGATIVE_INTEGER_ARGUMENT', `${what} must not be negative`, expr.start)
    } else if (typeof expr.value !== 'bigint') {
      env.report('INVALID_ARGUMENT_TYPE', `${what} must be an integer`, expr.start)
    }
  }
  return countOf(env, expr, what)
}

/** The run-time value of a SKIP/LIMIT expression (checked by `constantCount` at compile time). */
export function countOf(
  env: Pick<ProjectionEnv, 'exprs'>,
  expr: Expr,
  what: string,
): (row: Row, ctx: ExecContext) => number {
  const value = env.exprs.compile(expr, new Scope())
  return (row, ctx) => {
    const v = value(row, ctx)
    if (typeof v !== 'bigint') throw typeError(`${what} must be an integer, got ${typeName(v)}`)
    if (v < 0n) throw runtimeError('NEGATIVE_INTEGER_ARGUMENT', `${what} must not be negative`)
    return Number(v)
  }
}

/** ORDER BY, keeping only the rows SKIP + LIMIT can let through when `bound` gives that number. */
function sortStage(
  keys: Eval[],
  directions: number[],
  bound: ((ctx: ExecContext) => number) | undefined,
): StageFactory {
  return (ctx, next) => {
    const top = new TopK<Row>(keys, directions, bound === undefined ? Number.POSITIVE_INFINITY : bound(ctx))
    return {
      push(row) {
        top.offer(row, row, ctx)
        return true
      },
      finish() {
        for (const row of top.sorted()) if (!next.push(row)) break
        next.finish()
      },
    }
  }
}

interface Group {
  row: Row
  keys: Value[]
  accumulators: ReturnType<AccumulatorFactory>[]
}

/** Grouping: non-aggregate items are the keys; aggregate results land in hidden slots, then items are evaluated. */
function groupStage(env: ProjectionEnv, items: Item[], input: Scope): StageFactory {
  const exprs = env.exprs
  const keyItems = items.filter((item) => item.aggregates.length === 0)
  const aggItems = items.filter((item) => item.aggregates.length > 0)
  const keyEvals = keyItems.map((item) => exprs.compile(item.expr, input))
  const calls: { slot: number; factory: AccumulatorFactory }[] = []
  const aggregateSlots = new Map<Expr, number>()
  for (const item of aggItems) {
    for (const call of item.aggregates) {
      if (call.kind !== 'call') continue
      const args = call.args.map((arg) => exprs.compile(arg, input))
      const slot = env.allocSlot()
      aggregateSlots.set(call, slot)
      calls.push({ slot, factory: accumulatorFor(call.name.toLowerCase(), args, call.distinct, call.star) })
    }
  }
  exprs.aggregateSlots = aggregateSlots
  const aggEvals = aggItems.map((item) => exprs.compile(item.expr, input))
  exprs.aggregateSlots = undefined
  const keySlots = keyItems.map((item) => item.slot)
  const aggSlots = aggItems.map((item) => item.slot)
  return (ctx, next): Stage => {
    const groups = new Map<string, Group>()
    const newGroup = (row: Row, keys: Value[]): Group => ({
      row,
      keys,
      accumulators: calls.map((call) => call.factory()),
    })
    const single = keyEvals.length === 1 ? (keyEvals[0] as Eval) : undefined
    return {
      push(row) {
        let keys: Value[]
        let id: string
        if (single !== undefined) {
          // One grouping key: a string groups under itself behind a quote (no other valueKey starts
          // with one), sparing the escaping and the joined key.
          const key = single(row, ctx)
          keys = [key]
          id = typeof key === 'string' ? `"${key}` : valueKey(key)
        } else {
          keys = keyEvals.map((key) => key(row, ctx))
          id = ''
          for (const key of keys) id += `${valueKey(key)}|`
        }
        let group = groups.get(id)
        if (group === undefined) {
          group = newGroup(row, keys)
          groups.set(id, group)
        }
        for (const acc of group.accumulators) acc.add(row, ctx)
        return true
      },
      finish() {
        if (groups.size === 0 && keyItems.length === 0) groups.set('', newGroup(env.blankRow(), []))
        for (const group of groups.values()) {
          const out = group.row.slice()
          for (let i = 0; i < calls.length; i++)
            out[(calls[i] as { slot: number }).slot] = (
              group.accumulators[i] as ReturnType<AccumulatorFactory>
            ).result()
          for (let i = 0; i < keySlots.length; i++) out[keySlots[i] as number] = group.keys[i] as Value
          for (let i = 0; i < aggSlots.length; i++)
            out[aggSlots[i] as number] = (aggEvals[i] as Eval)(out, ctx)
          if (!next.push(out)) break
        }
        next.finish()
      },
    }
  }
}
