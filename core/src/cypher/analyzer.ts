import type { Clause, Expr, PatternPart, Span } from './ast.js'
import { type CypherError, positionAt, syntaxError } from './errors.js'

/** What a variable is known to hold; used for type-conflict checks and to plan patterns. */
export type VarKind = 'node' | 'rel' | 'relList' | 'path' | 'scalar' | 'value'

export interface Binding {
  slot: number
  kind: VarKind
}

/**
 * Variables visible at one point of a query, each mapped to its row slot. Scopes are immutable from
 * the outside: clauses derive a child scope (`with`) or a fresh one (projections).
 */
export class Scope {
  constructor(private readonly vars: Map<string, Binding> = new Map()) {}

  get(name: string): Binding | undefined {
    return this.vars.get(name)
  }

  has(name: string): boolean {
    return this.vars.has(name)
  }

  with(name: string, binding: Binding): Scope {
    const vars = new Map(this.vars)
    vars.set(name, binding)
    return new Scope(vars)
  }

  /** Adds in place; only for scopes a clause is still building. */
  define(name: string, binding: Binding): void {
    this.vars.set(name, binding)
  }

  copy(): Scope {
    return new Scope(new Map(this.vars))
  }

  /** User-visible names (hidden names start with a space), sorted as `RETURN *` lists them. */
  names(): string[] {
    return [...this.vars.keys()].filter((name) => !name.startsWith(' ')).sort()
  }

  entries(): IterableIterator<[string, Binding]> {
    return this.vars.entries()
  }
}

export const AGGREGATES = new Set([
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'collect',
  'stdev',
  'stdevp',
  'percentilecont',
  'percentiledisc',
])

export const isAggregateCall = (expr: Expr): boolean =>
  expr.kind === 'call' && AGGREGATES.has(expr.name.toLowerCase())

/** What an expression is known to produce at compile time; 'value' when it could be anything. */
export function staticKind(expr: Expr, scope: Scope): VarKind {
  switch (expr.kind) {
    case 'var':
      return scope.get(expr.name)?.kind ?? 'value'
    case 'literal':
      // `WITH null AS a` may stand where a node is expected (OPTIONAL MATCH (a)…).
      return expr.value === null ? 'value' : 'scalar'
    case 'list':
    case 'map':
    case 'mapProjection':
    case 'unary':
    case 'binary':
    case 'isNull':
    case 'hasLabels':
    case 'listComp':
    case 'quantifier':
    case 'patternExists':
    case 'patternComp':
    case 'subquery':
    case 'typePredicate':
    case 'labelExpr':
      return 'scalar'
    default:
      return 'value'
  }
}

export type StaticType = 'null' | 'boolean' | 'integer' | 'float' | 'string' | 'list' | 'map'

/** The type of a literal-shaped expression, undefined when unknown until run time. */
export function staticType(expr: Expr): StaticType | undefined {
  if (expr.kind === 'list' || expr.kind === 'listComp') return 'list'
  if (expr.kind === 'map') return 'map'
  if (expr.kind !== 'literal') return undefined
  const value = expr.value
  if (value === null) return 'null'
  switch (typeof value) {
    case 'boolean':
      return 'boolean'
    case 'bigint':
      return 'integer'
    case 'number':
      return 'float'
    default:
      return 'string'
  }
}

/** Direct children of an expression (patterns excluded). */
export function children(expr: Expr): Expr[] {
  switch (expr.kind) {
    case 'literal':
    case 'param':
    case 'var':
      return []
    case 'prop':
      return [expr.target]
    case 'index':
      return [expr.target, expr.index]
    case 'slice':
      return [expr.target, ...(expr.from ? [expr.from] : []), ...(expr.to ? [expr.to] : [])]
    case 'list':
      return expr.items
    case 'map':
      return expr.entries.map(([, value]) => value)
    case 'mapProjection':
      return expr.items.flatMap((item) => (item.kind === 'entry' ? [item.value] : []))
    case 'unary':
      return [expr.operand]
    case 'binary':
      return [expr.left, expr.right]
    case 'isNull':
      return [expr.operand]
    case 'hasLabels':
    case 'labelExpr':
      return [expr.target]
    case 'typePredicate':
      return [expr.operand]
    case 'subquery':
      return []
    case 'call':
      return expr.args
    case 'case':
      return [
        ...(expr.subject ? [expr.subject] : []),
        ...expr.whens.flat(),
        ...(expr.otherwise ? [expr.otherwise] : []),
      ]
    case 'listComp':
      return [expr.source, ...(expr.where ? [expr.where] : []), ...(expr.project ? [expr.project] : [])]
    case 'quantifier':
      return [expr.source, expr.where]
    case 'reduce':
      return [expr.init, expr.source, expr.expr]
    case 'patternExists':
      return patternExprs(expr.pattern)
    case 'patternComp':
      return [...patternExprs(expr.pattern), ...(expr.where ? [expr.where] : []), expr.project]
  }
}

function patternExprs(part: PatternPart): Expr[] {
  const out: Expr[] = []
  for (const node of part.nodes) {
    if (node.props) out.push(node.props)
    if (node.where) out.push(node.where)
  }
  for (const rel of part.rels) {
    if (rel.props) out.push(rel.props)
    if (rel.where) out.push(rel.where)
  }
  return out
}

/** Every variable name a subquery mentions: the outer ones it may import (an over-approximation). */
function subqueryNames(node: unknown, out: Set<string>, bound: ReadonlySet<string>): void {
  if (Array.isArray(node)) for (const item of node) subqueryNames(item, out, bound)
  else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>
    if (record.kind === 'var' && typeof record.name === 'string' && !bound.has(record.name))
      out.add(record.name)
    if (
      (record.kind === 'node' || record.kind === 'rel') &&
      typeof record.variable === 'string' &&
      !bound.has(record.variable)
    )
      out.add(record.variable)
    for (const key of Object.keys(record)) subqueryNames(record[key], out, bound)
  }
}

const callsRand = (expr: Expr): boolean =>
  (expr.kind === 'call' && expr.name.toLowerCase() === 'rand') || children(expr).some(callsRand)

/** Aggregate calls in `expr`, outermost first; nested aggregates are an error. */
export function findAggregates(expr: Expr, text: string, out: Expr[] = []): Expr[] {
  if (isAggregateCall(expr)) {
    for (const arg of children(expr)) {
      // Neo4j: an aggregate over rand() has no defined result (NonConstantExpression).
      if (callsRand(arg)) {
        throw syntaxError(
          'NON_CONSTANT_EXPRESSION',
          'an aggregate function cannot aggregate rand()',
          positionAt(text, arg.start),
        )
      }
      if (findAggregates(arg, text, []).length > 0) {
        throw syntaxError(
          'NESTED_AGGREGATION',
          'aggregate functions cannot be nested',
          positionAt(text, expr.start),
        )
      }
    }
    out.push(expr)
    return out
  }
  if (expr.kind === 'listComp' || expr.kind === 'quantifier' || expr.kind === 'reduce') {
    const bodies =
      expr.kind === 'reduce'
        ? [expr.expr]
        : expr.kind === 'listComp'
          ? [expr.where, expr.project]
          : [expr.where]
    for (const body of bodies) {
      if (body !== undefined && findAggregates(body, text, []).length > 0) {
        throw syntaxError(
          'INVALID_AGGREGATION',
          'aggregate functions cannot be used inside comprehensions',
          positionAt(text, body.start),
        )
      }
    }
  }
  for (const child of children(expr)) findAggregates(child, text, out)
  return out
}

/** Free variable names of `expr` (comprehension and pattern-local variables excluded where known). */
export function freeVariables(
  expr: Expr,
  out: Set<string> = new Set(),
  bound: ReadonlySet<string> = new Set(),
): Set<string> {
  switch (expr.kind) {
    case 'var':
      if (!bound.has(expr.name)) out.add(expr.name)
      return out
    case 'mapProjection':
      if (!bound.has(expr.variable)) out.add(expr.variable)
      for (const item of expr.items) {
        if (item.kind === 'entry') freeVariables(item.value, out, bound)
        if (item.kind === 'variable' && !bound.has(item.name)) out.add(item.name)
      }
      return out
    case 'listComp':
    case 'quantifier': {
      freeVariables(expr.source, out, bound)
      const inner = new Set(bound).add(expr.variable)
      if (expr.where) freeVariables(expr.where, out, inner)
      if (expr.kind === 'listComp' && expr.project) freeVariables(expr.project, out, inner)
      return out
    }
    case 'reduce': {
      freeVariables(expr.init, out, bound)
      freeVariables(expr.source, out, bound)
      freeVariables(expr.expr, out, new Set(bound).add(expr.variable).add(expr.accumulator))
      return out
    }
    case 'subquery':
      subqueryNames(expr.query, out, bound)
      return out
    case 'patternExists':
    case 'patternComp': {
      for (const node of expr.pattern.nodes)
        if (node.variable && !bound.has(node.variable)) out.add(node.variable)
      for (const rel of expr.pattern.rels) if (rel.variable && !bound.has(rel.variable)) out.add(rel.variable)
      for (const child of children(expr)) freeVariables(child, out, bound)
      return out
    }
    default:
      for (const child of children(expr)) freeVariables(child, out, bound)
      return out
  }
}

/** A span-free structural key: two expressions with equal keys compute the same value. */
export function exprKey(expr: Expr): string {
  return JSON.stringify(expr, (key, value) =>
    key === 'start' || key === 'end' ? undefined : typeof value === 'bigint' ? `${value}n` : value,
  )
}

/** Splits a predicate into its AND-ed conjuncts. */
export function conjuncts(expr: Expr): Expr[] {
  if (expr.kind === 'binary' && expr.op === 'AND') return [...conjuncts(expr.left), ...conjuncts(expr.right)]
  return [expr]
}

/** Collects compile errors so `validate` mode can report all of them; other modes stop at the first. */
export class Diagnostics {
  readonly errors: CypherError[] = []

  constructor(
    readonly text: string,
    private readonly collect: boolean,
  ) {}

  report(code: string, message: string, at: Span | number): void {
    const offset = typeof at === 'number' ? at : at.start
    const error = syntaxError(code, message, positionAt(this.text, offset))
    if (!this.collect) throw error
    this.errors.push(error)
  }

  fail(code: string, message: string, at: Span | number): never {
    const offset = typeof at === 'number' ? at : at.start
    throw syntaxError(code, message, positionAt(this.text, offset))
  }
}

export const isUpdating = (clause: Clause): boolean =>
  clause.kind === 'create' ||
  clause.kind === 'merge' ||
  clause.kind === 'set' ||
  clause.kind === 'remove' ||
  clause.kind === 'delete' ||
  clause.kind === 'foreach'

/** Clauses a query may end with besides RETURN and updates: a procedure call, a unit subquery, FINISH. */
const mayEnd = (clause: Clause): boolean =>
  isUpdating(clause) || clause.kind === 'call' || clause.kind === 'subqueryCall' || clause.kind === 'finish'

/** Clause order rules (openCypher): RETURN last, WITH between an update and MATCH, no dangling reads. */
export function checkComposition(clauses: Clause[], index: number, diagnostics: Diagnostics): void {
  const clause = clauses[index] as Clause
  const last = index === clauses.length - 1
  if ((clause.kind === 'return' || clause.kind === 'finish') && !last) {
    diagnostics.report(
      'INVALID_CLAUSE_COMPOSITION',
      `${clause.kind.toUpperCase()} must be the last clause`,
      clauses[index + 1]?.start ?? clause.start,
    )
  }
  const previous = clauses[index - 1]
  if (clause.kind === 'match' && previous !== undefined && isUpdating(previous)) {
    diagnostics.report(
      'INVALID_CLAUSE_COMPOSITION',
      'a WITH is required between an updating clause and MATCH',
      clause.start,
    )
  }
  if (last && clause.kind !== 'return' && !mayEnd(clause)) {
    diagnostics.report(
      'INVALID_CLAUSE_COMPOSITION',
      `a query cannot end with ${clause.kind.toUpperCase()}`,
      clause.start,
    )
  }
}
