import type { GraphReader } from '../../graph/types.js'
import type { Clause, Expr, Projection } from '../ast.js'
import { cachedName } from '../operators.js'
import type { ExecContext, Row, Stage, StageFactory } from './context.js'

/**
 * `MATCH (n:Label) RETURN count(n)`, `MATCH (n) RETURN count(*)` and `MATCH ()-[r]->() RETURN count(r)`
 * answered from the store's counters, as Neo4j's count store answers them: no record is visited, so the
 * count of ten million nodes costs what the count of ten does.
 */
export type CountSource =
  | { kind: 'label'; label: string }
  | { kind: 'nodes' }
  | { kind: 'relationships' }
  | { kind: 'type'; type: string }

/** The counted source of a MATCH and the counting projection after it, or undefined. Syntax only. */
export function countStoreShape(match: Clause, projection: Projection): CountSource | undefined {
  if (match.kind !== 'match' || match.optional || match.where !== undefined) return undefined
  const part = match.pattern.length === 1 ? match.pattern[0] : undefined
  if (part === undefined || part.variable !== undefined || part.shortest !== undefined) return undefined
  if (projection.star || projection.items.length === 0 || projection.orderBy.length > 0) return undefined
  const plainNode = (at: number): boolean => {
    const node = part.nodes[at]
    return (
      node !== undefined &&
      node.props === undefined &&
      node.where === undefined &&
      node.labelExpr === undefined &&
      node.dynamicLabels === undefined
    )
  }
  let counted: string | undefined
  let source: CountSource
  if (part.rels.length === 0) {
    const node = part.nodes[0]
    if (node === undefined || !plainNode(0) || node.labels.length > 1) return undefined
    counted = node.variable
    source = node.labels.length === 1 ? { kind: 'label', label: node.labels[0] as string } : { kind: 'nodes' }
  } else {
    const rel = part.rels[0]
    // One directed hop between unlabelled anonymous nodes: each relationship matches exactly once.
    if (part.rels.length !== 1 || rel === undefined || rel.direction === 'both') return undefined
    if (rel.types.length > 1 || rel.typeExpr !== undefined || rel.props !== undefined) return undefined
    if (rel.varLength !== undefined || rel.where !== undefined || rel.hopNodes !== undefined) return undefined
    if (!plainNode(0) || !plainNode(1)) return undefined
    if (part.nodes.some((node) => node.variable !== undefined || node.labels.length > 0)) return undefined
    counted = rel.variable
    source =
      rel.types.length === 1 ? { kind: 'type', type: rel.types[0] as string } : { kind: 'relationships' }
  }
  const counts = (expr: Expr): boolean => {
    if (expr.kind !== 'call' || expr.name.toLowerCase() !== 'count') return false
    if (expr.star) return true
    // count(n) and count(DISTINCT n) of the matched variable: every row binds a different record.
    const arg = expr.args.length === 1 ? expr.args[0] : undefined
    return arg?.kind === 'var' && counted !== undefined && arg.name === counted
  }
  return projection.items.every((item) => counts(item.expr)) ? source : undefined
}

/** Emits one row with the count in `slot`; inside a transaction it counts the overlay's records exactly. */
export function countStoreStage(source: CountSource, slot: number, blankRow: () => Row): StageFactory {
  const label =
    source.kind === 'label'
      ? cachedName(source.label)
      : source.kind === 'type'
        ? cachedName(source.type)
        : undefined
  return (ctx: ExecContext, next: Stage): Stage => ({
    push() {
      const row = blankRow()
      row[slot] = BigInt(countOf(ctx, source, label))
      return next.push(row)
    },
    finish: () => next.finish(),
  })
}

function countOf(ctx: ExecContext, source: CountSource, label: ReturnType<typeof cachedName> | undefined) {
  const graph = ctx.graph
  if (source.kind === 'nodes') return graph.nodeCount()
  if (source.kind === 'relationships') return graph.relCount()
  const labelId = (label as ReturnType<typeof cachedName>)(graph.names)
  if (labelId < 0) return 0
  if (source.kind === 'type') {
    // The published store keeps a counter per type; a transaction's overlay is walked.
    if (ctx.tx === undefined && graph.relTypeCount !== undefined) return graph.relTypeCount(labelId)
    let n = 0
    for (const rel of graph.allRelIds()) if (graph.relType(rel) === labelId) n++
    return n
  }
  // A transaction's label count is an estimate (it does not subtract its own deletes): walk its ids.
  return ctx.tx === undefined ? graph.labelCount(labelId) : sizeOf(graph, labelId)
}

function sizeOf(graph: GraphReader, labelId: number): number {
  let n = 0
  for (const _ of graph.labelNodeIds(labelId)) n++
  return n
}
