import { labelColumnOf } from '../../graph/columns.js'
import { children, isAggregateCall } from '../analyzer.js'
import type { Clause, Expr } from '../ast.js'
import type { Eval } from '../compile-expr.js'
import { cachedName } from '../operators.js'
import { NodeValue, truth } from '../values.js'
import { ColumnTopK, type ColumnTopKPlan } from './column-top-k.js'
import type { ExecContext, Row, Stage, StageFactory } from './context.js'

/**
 * `MATCH (v:Label) [WHERE …] RETURN … ORDER BY … LIMIT k` where v appears only as `v.key`: one operator that
 * reads the label's property columns into a scratch row, filters, projects and keeps the top rows, and builds
 * output rows for the survivors only (the row pipeline allocates a node value and two rows per scanned
 * record, then sorts). Same rows, same order (ties in scan order), same budget counts as that pipeline.
 */
export interface ScanTopKShape {
  variable: string
  label: string
  /** Property keys of v read anywhere in the query, in first-use order. */
  keys: string[]
}

/** Expression kinds whose evaluation reads nothing but their children (no graph access, no new scope). */
const PLAIN = new Set([
  'literal',
  'param',
  'var',
  'prop',
  'index',
  'slice',
  'list',
  'map',
  'unary',
  'binary',
  'isNull',
  'call',
  'case',
])

/** Collects v's property keys; false when v is used other than as `v.key` or the expression reaches further. */
export function onlyProperties(expr: Expr, variable: string, keys: string[]): boolean {
  if (!PLAIN.has(expr.kind)) return false
  if (expr.kind === 'call' && isAggregateCall(expr)) return false
  if (expr.kind === 'var') return expr.name !== variable
  if (expr.kind === 'prop' && expr.target.kind === 'var' && expr.target.name === variable) {
    if (!keys.includes(expr.key)) keys.push(expr.key)
    return true
  }
  return children(expr).every((child) => onlyProperties(child, variable, keys))
}

/** The fusable shape of a read-only `MATCH` + final `RETURN … ORDER BY … LIMIT`, or undefined. Syntax only. */
export function scanTopKShape(match: Clause, following: Clause | undefined): ScanTopKShape | undefined {
  if (match.kind !== 'match' || match.optional || following?.kind !== 'return') return undefined
  const projection = following.projection
  if (projection.star || projection.distinct || projection.limit === undefined) return undefined
  if (projection.orderBy.length === 0) return undefined
  const part = match.pattern.length === 1 ? match.pattern[0] : undefined
  if (part === undefined || part.variable !== undefined || part.rels.length > 0) return undefined
  const node = part.nodes[0]
  if (node?.variable === undefined || node.labels.length !== 1 || node.props !== undefined) return undefined
  const variable = node.variable
  const keys: string[] = []
  // An equality on a property is an index seek: better than any scan.
  for (const conjunct of match.where ? conjunctsOf(match.where) : []) {
    if (conjunct.kind === 'binary' && conjunct.op === '=') return undefined
  }
  const exprs = [
    ...(match.where ? [match.where] : []),
    ...projection.items.map((item) => item.expr),
    ...projection.orderBy.map((sort) => sort.expr),
  ]
  if (!exprs.every((expr) => onlyProperties(expr, variable, keys))) return undefined
  return { variable, label: node.labels[0] as string, keys }
}

export function conjunctsOf(expr: Expr): Expr[] {
  return expr.kind === 'binary' && expr.op === 'AND'
    ? [...conjunctsOf(expr.left), ...conjunctsOf(expr.right)]
    : [expr]
}

export interface ScanTopKPlan extends ColumnTopKPlan {
  shape: ScanTopKShape
  nodeSlot: number
  /** WHERE conjuncts without v, checked once before the scan (as the row pipeline places them). */
  before: Eval[]
  skip: ((row: Row, ctx: ExecContext) => number) | undefined
  limit: (row: Row, ctx: ExecContext) => number
  blankRow: () => Row
}

export function scanTopKStage(plan: ScanTopKPlan): StageFactory {
  const label = cachedName(plan.shape.label)
  const keys = plan.shape.keys.map(cachedName)
  const { items, before } = plan
  return (ctx: ExecContext, next: Stage): Stage => {
    const blank = plan.blankRow()
    const skip = plan.skip ? plan.skip(blank, ctx) : 0
    const k = skip + plan.limit(blank, ctx)
    return {
      push(row) {
        const graph = ctx.graph
        for (const pred of before) if (truth(pred(row, ctx)) !== true) return true
        const labelId = label(graph.names)
        if (labelId < 0) return true
        const columns = keys.map((key) => {
          const keyId = key(graph.names)
          return keyId < 0 ? undefined : labelColumnOf(graph, labelId, keyId)
        })
        const ids = labelColumnOf(graph, labelId, -1).ids
        const scratch = row.slice()
        const scan = new ColumnTopK(plan, columns, k, scratch, ctx)
        scan.run(ids.length)
        for (const at of scan.top.sorted().slice(skip, k)) {
          scan.fill(at)
          const out = row.slice()
          out[plan.nodeSlot] = new NodeValue(ids[at] as number)
          for (const item of items) out[item.slot] = item.value(scratch, ctx)
          if (!next.push(out)) return false
        }
        return true
      },
      finish: () => next.finish(),
    }
  }
}
