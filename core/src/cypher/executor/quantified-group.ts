import type { Scope } from '../analyzer.js'
import type { Expr, NodePattern, RelPattern } from '../ast.js'
import type { Eval, ExpressionCompiler } from '../compile-expr.js'
import { NodeValue, RelValue, truth } from '../values.js'
import type { HopCheck } from './expand.js'
import type { NodeCheck, Step } from './steps.js'

/**
 * Quantified relationships and one-hop quantified groups, `-[r:R WHERE …]->{1,3}` and
 * `((a:A)-[r]->(b) WHERE …)+`: the conditions every hop must pass, and the group variables, each bound to the
 * list of what it met hop by hop.
 */
export interface HopEnv {
  readonly exprs: ExpressionCompiler
  allocSlot(): number
  report(code: string, message: string, at: number): void
}

/** The predicates a hop must pass: a group's, or a quantified relationship's inline WHERE (its variable one hop). */
export function hopPredicate(rel: RelPattern): Expr | undefined {
  return rel.hopWhere ?? (rel.varLength !== undefined ? rel.where : undefined)
}

/** The inner node variables of a group, bound to lists once the pattern matched. */
export function groupNodeVariables(rel: RelPattern): string[] {
  const names: string[] = []
  for (const node of rel.hopNodes ?? [])
    if (node.variable !== undefined && !names.includes(node.variable)) names.push(node.variable)
  return names
}

/**
 * The check of one hop (in the pattern's left-to-right orientation): the inner nodes' labels and properties,
 * then the predicates, with the hop's nodes and relationship bound singly to slots of their own.
 */
export function compileHop(
  env: HopEnv,
  rel: RelPattern,
  scope: Scope,
  nodeCheck: (node: NodePattern) => NodeCheck,
): HopCheck | undefined {
  const [left, right] = rel.hopNodes ?? [undefined, undefined]
  for (const name of groupNodeVariables(rel))
    if (scope.has(name))
      env.report('VARIABLE_ALREADY_BOUND', `variable '${name}' is already defined`, rel.start)
  const leftCheck = left ? nodeCheck(left) : undefined
  const rightCheck = right ? nodeCheck(right) : undefined
  const where = hopPredicate(rel)
  let predicate: Eval | undefined
  const slots = { left: -1, rel: -1, right: -1 }
  if (where !== undefined) {
    const hopScope = scope.copy()
    const bind = (name: string | undefined, kind: 'node' | 'rel'): number => {
      if (name === undefined) return -1
      const existing = hopScope.get(name)
      if (existing !== undefined && existing.kind === kind && !scope.has(name)) return existing.slot
      const slot = env.allocSlot()
      hopScope.define(name, { slot, kind })
      return slot
    }
    slots.left = bind(left?.variable, 'node')
    slots.rel = bind(rel.variable, 'rel')
    slots.right = bind(right?.variable, 'node')
    predicate = env.exprs.compile(where, hopScope)
  }
  if (leftCheck === undefined && rightCheck === undefined && predicate === undefined) return undefined
  return (l, r, rr, row, ctx) => {
    if (leftCheck && !leftCheck(l, row, ctx)) return false
    if (rightCheck && !rightCheck(rr, row, ctx)) return false
    if (predicate === undefined) return true
    if (slots.left >= 0) row[slots.left] = new NodeValue(l)
    if (slots.rel >= 0) row[slots.rel] = new RelValue(r)
    if (slots.right >= 0) row[slots.right] = new NodeValue(rr)
    return truth(predicate(row, ctx)) === true
  }
}

/**
 * Binds a group's inner node variables to lists: walking the matched relationships (in pattern order) from the
 * group's left outer node, the node each hop leaves goes to `leftList`, the node it reaches to `rightList`.
 */
export function groupListsStep(
  outerLeft: number,
  relList: number,
  leftList: number,
  rightList: number,
): Step {
  return (next) => (row, ctx, emit) => {
    const start = row[outerLeft]
    const rels = row[relList]
    const lefts: NodeValue[] = []
    const rights: NodeValue[] = []
    if (start instanceof NodeValue && Array.isArray(rels)) {
      let current = start.id
      for (const rel of rels as RelValue[]) {
        lefts.push(new NodeValue(current))
        const from = ctx.graph.relStart(rel.id)
        current = from === current ? ctx.graph.relEnd(rel.id) : from
        rights.push(new NodeValue(current))
      }
    }
    if (leftList >= 0) row[leftList] = lefts
    if (rightList >= 0) row[rightList] = rights
    return next(row, ctx, emit)
  }
}
