/**
 * Function calls in expressions: the checks Neo4j makes when compiling (aggregates only where a projection
 * aggregates, arity, argument kinds, patterns only in exists()), then the call itself as a closure.
 */
import { isAggregateCall, type Scope, type VarKind } from './analyzer.js'
import type { Expr } from './ast.js'
import { constant, type Eval } from './compiled.js'
import { lookupFunction } from './function-table.js'
import type { Value } from './values.js'

/** What a call needs from the compiler it is part of. */
export interface CallEnv {
  /** Set while compiling an aggregating projection: aggregate call -> slot holding its result. */
  readonly aggregateSlots: Map<Expr, number> | undefined
  report(code: string, message: string, at: number): void
  compile(expr: Expr, scope: Scope): Eval
}

/** Constructors that parse a string into an immutable temporal value (no clock involved). */
const TEMPORAL_PARSERS = new Set(['date', 'localtime', 'time', 'localdatetime', 'datetime', 'duration'])

/** Variable kinds a function refuses at compile time (Neo4j reports these as type errors before running). */
const REFUSED_ARGUMENT_KINDS: Record<string, readonly VarKind[]> = {
  length: ['node', 'rel'],
  type: ['node', 'path'],
  labels: ['rel', 'path'],
  nodes: ['node', 'rel'],
  relationships: ['node', 'rel'],
}
const KIND_NAMES: Record<VarKind, string> = {
  node: 'node',
  rel: 'relationship',
  relList: 'list',
  path: 'path',
  scalar: 'value',
  value: 'value',
}

export function compileCall(expr: Expr & { kind: 'call' }, scope: Scope, env: CallEnv): Eval {
  const name = expr.name.toLowerCase()
  if (isAggregateCall(expr)) {
    const slot = env.aggregateSlots?.get(expr)
    if (slot === undefined) {
      env.report('INVALID_AGGREGATION', `aggregate function ${expr.name}() is not allowed here`, expr.start)
      return constant(null)
    }
    if (expr.star && name !== 'count') {
      env.report('CYPHER_SYNTAX_ERROR', `${expr.name}(*) is only valid for count`, expr.start)
      return constant(null)
    }
    // Arity is checked here because aggregates are not in FUNCTIONS; count() without * ran as a crash.
    const arity = name.startsWith('percentile') ? 2 : expr.star ? 0 : 1
    if (expr.args.length !== arity) {
      env.report(
        'INVALID_NUMBER_OF_ARGUMENTS',
        `${expr.name}() takes ${arity} argument${arity === 1 ? '' : 's'}, got ${expr.args.length}`,
        expr.start,
      )
      return constant(null)
    }
    return (row) => row[slot] as Value
  }
  if (expr.star) {
    env.report('CYPHER_SYNTAX_ERROR', `${expr.name}(*) is only valid for count`, expr.start)
    return constant(null)
  }
  if (name === 'size' && expr.args.length === 1) {
    const arg = expr.args[0] as Expr
    if (arg.kind === 'patternExists')
      env.report('CYPHER_SYNTAX_ERROR', 'size() of a pattern is not supported', arg.start)
    if (arg.kind === 'var' && scope.get(arg.name)?.kind === 'path') {
      env.report('INVALID_ARGUMENT_TYPE', 'size() of a path is not allowed; use length()', arg.start)
    }
  }
  // A pattern is a predicate, not a value: only exists() takes one as an argument.
  if (name !== 'exists' && name !== 'size') {
    for (const arg of expr.args)
      if (arg.kind === 'patternExists')
        env.report('CYPHER_SYNTAX_ERROR', `a pattern cannot be an argument of ${expr.name}()`, arg.start)
  }
  const refused = REFUSED_ARGUMENT_KINDS[name]
  const first = expr.args[0]
  if (refused !== undefined && first?.kind === 'var') {
    const kind = scope.get(first.name)?.kind
    if (kind !== undefined && refused.includes(kind))
      env.report('INVALID_ARGUMENT_TYPE', `${expr.name}() does not accept a ${KIND_NAMES[kind]}`, first.start)
  }
  if (name === 'exists' && expr.args.length === 1) {
    const arg = expr.args[0] as Expr
    if (arg.kind === 'patternExists') return env.compile(arg, scope)
    if (arg.kind !== 'prop') {
      env.report('INVALID_ARGUMENT_TYPE', 'exists() expects a property or a pattern', arg.start)
    }
  }
  const def = lookupFunction(name)
  if (def === undefined) {
    env.report('UNKNOWN_FUNCTION', `unknown function '${expr.name}'`, expr.start)
    return constant(null)
  }
  if (expr.args.length < def.min || expr.args.length > def.max) {
    env.report(
      'INVALID_NUMBER_OF_ARGUMENTS',
      `${expr.name}() takes ${def.min === def.max ? def.min : `${def.min} to ${def.max}`} arguments, got ${expr.args.length}`,
      expr.start,
    )
    return constant(null)
  }
  const args = expr.args.map((arg) => env.compile(arg, scope))
  const fn = def.fn
  const text = expr.args.length === 1 ? expr.args[0] : undefined
  if (TEMPORAL_PARSERS.has(name) && text?.kind === 'literal' && typeof text.value === 'string') {
    // A temporal value parsed from a literal is the same immutable value on every row: parse it once.
    let parsed: Value | undefined
    return (_row, ctx) => {
      parsed ??= fn([text.value as string], ctx)
      return parsed
    }
  }
  if (args.length === 1) {
    const only = args[0] as Eval
    return (row, ctx) => fn([only(row, ctx)], ctx)
  }
  return (row, ctx) => {
    const values: Value[] = new Array(args.length)
    for (let i = 0; i < args.length; i++) values[i] = (args[i] as Eval)(row, ctx)
    return fn(values, ctx)
  }
}
