import type { PropertyValue } from '../../graph/types.js'
import type { Direction, LabelExpr } from '../ast.js'
import { NodeValue, PathValue, RelValue } from '../values.js'
import { type ExecContext, type Row, tick, walkAdjacency } from './context.js'
import { labelExprMatches } from './label-expr.js'
import type { NodeCheck, PropCheck, Step } from './steps.js'

/** Expansion steps of the matcher: one hop, variable length, and path assembly. */
export interface ExpandSpec {
  from: number
  rel: number
  relBound: boolean
  to: number
  toBound: boolean
  types: string[]
  /** `[:!R]`, `[:%]`: a type expression beyond a list of alternatives. */
  typeExpr?: LabelExpr | undefined
  direction: Direction
  relCheck: PropCheck | undefined
  toCheck: NodeCheck
  /** Relationship slots bound earlier in the same MATCH: relationship isomorphism. */
  used: { slot: number; list: boolean }[]
  /**
   * A quantified group's condition on every hop (its inner nodes' labels and properties, its predicates), given
   * the hop in the pattern's own left-to-right orientation.
   */
  hop?: HopCheck
}

export type HopCheck = (left: number, rel: number, right: number, row: Row, ctx: ExecContext) => boolean

export function relUsed(spec: ExpandSpec, row: Row, id: number): boolean {
  for (const used of spec.used) {
    const value = row[used.slot]
    if (used.list) {
      if (Array.isArray(value)) for (const r of value) if (r instanceof RelValue && r.id === id) return true
    } else if (value instanceof RelValue && value.id === id) return true
  }
  return false
}

export function typeIds(spec: ExpandSpec, ctx: ExecContext): number[] | undefined {
  if (spec.types.length === 0) return undefined
  return spec.types.map((type) => ctx.graph.names.lookup(type))
}

/**
 * Calls `visit(rel, other)` for each relationship of `node` matching direction and type, newest first (by
 * descending id, outgoing and incoming interleaved), the order Neo4j walks a node's relationship chain in: a
 * `collect()` without ORDER BY then lists items as Neo4j users see them.
 */
export function forEachRel(
  ctx: ExecContext,
  nodeId: number,
  direction: Direction,
  types: number[] | undefined,
  visit: (rel: number, other: number) => boolean,
): boolean {
  const node = ctx.graph.node(nodeId)
  if (node === undefined) return true
  const g = ctx.graph
  const out = direction === 'in' ? NO_RELS : node.out
  const into = direction === 'out' ? NO_RELS : node.in
  let i = out.length - 1
  let j = into.length - 1
  while (i >= 0 || j >= 0) {
    walkAdjacency(ctx)
    const o = i >= 0 ? (out[i] as number) : -1
    const n = j >= 0 ? (into[j] as number) : -1
    if (o > n) {
      i--
      if (types !== undefined && !types.includes(g.relType(o))) continue
      if (!visit(o, g.relEnd(o))) return false
    } else {
      j--
      const start = g.relStart(n)
      if (direction === 'both' && start === nodeId) continue // a self-loop, seen as outgoing
      if (types !== undefined && !types.includes(g.relType(n))) continue
      if (!visit(n, start)) return false
    }
  }
  return true
}

const NO_RELS: readonly number[] = []

export function relPropsOk(spec: ExpandSpec, rel: number, row: Row, ctx: ExecContext): boolean {
  if (
    spec.typeExpr !== undefined &&
    !labelExprMatches(spec.typeExpr, [ctx.graph.relType(rel)], ctx.graph.names)
  )
    return false
  if (spec.relCheck === undefined) return true
  const graph = ctx.graph
  const props = graph.relProperty ? undefined : graph.relProps(rel)
  return spec.relCheck(row, ctx, (key) => {
    const keyId = graph.names.lookup(key)
    if (keyId < 0) return null
    return (
      ((graph.relProperty ? graph.relProperty(rel, keyId) : props?.get(keyId)) as
        | PropertyValue
        | undefined) ?? null
    )
  })
}

export function expandStep(spec: ExpandSpec): Step {
  return (next) => (row, ctx, emit) => {
    const from = row[spec.from]
    if (!(from instanceof NodeValue)) return true
    const boundRel = spec.relBound ? row[spec.rel] : undefined
    if (spec.relBound && !(boundRel instanceof RelValue)) return true
    const target = spec.toBound ? row[spec.to] : undefined
    if (spec.toBound && !(target instanceof NodeValue)) return true
    return forEachRel(ctx, from.id, spec.direction, typeIds(spec, ctx), (rel, other) => {
      tick(ctx)
      if (boundRel !== undefined && (boundRel as RelValue).id !== rel) return true
      if (target !== undefined && (target as NodeValue).id !== other) return true
      if (relUsed(spec, row, rel)) return true
      if (!relPropsOk(spec, rel, row, ctx)) return true
      if (spec.toCheck && !spec.toCheck(other, row, ctx)) return true
      if (!spec.relBound) row[spec.rel] = new RelValue(rel)
      if (!spec.toBound) row[spec.to] = new NodeValue(other)
      return next(row, ctx, emit)
    })
  }
}

export function varExpandStep(spec: ExpandSpec, min: number, max: number, leftward: boolean): Step {
  return (next) => (row, ctx, emit) => {
    const from = row[spec.from]
    if (!(from instanceof NodeValue)) return true
    const target = spec.toBound ? row[spec.to] : undefined
    if (spec.toBound && !(target instanceof NodeValue)) return true
    const types = typeIds(spec, ctx)
    const stack: number[] = []
    const arrive = (node: number): boolean => {
      if (target !== undefined && (target as NodeValue).id !== node) return true
      if (spec.toCheck && !spec.toCheck(node, row, ctx)) return true
      const rels = stack.map((id) => new RelValue(id))
      if (leftward) rels.reverse()
      row[spec.rel] = rels
      if (!spec.toBound) row[spec.to] = new NodeValue(node)
      return next(row, ctx, emit)
    }
    const walk = (node: number, depth: number): boolean => {
      tick(ctx)
      if (depth >= min && !arrive(node)) return false
      if (depth === max) return true
      return forEachRel(ctx, node, spec.direction, types, (rel, other) => {
        if (stack.includes(rel) || relUsed(spec, row, rel)) return true
        if (!relPropsOk(spec, rel, row, ctx)) return true
        if (
          spec.hop &&
          !(leftward ? spec.hop(other, rel, node, row, ctx) : spec.hop(node, rel, other, row, ctx))
        )
          return true
        stack.push(rel)
        const go = walk(other, depth + 1)
        stack.pop()
        return go
      })
    }
    return walk(from.id, 0)
  }
}

/** `(a)-[rs*]->(b)` with `rs` bound to a list: the list's relationships, in order, must form the path. */
export function boundListStep(spec: ExpandSpec, min: number, max: number, leftward: boolean): Step {
  return (next) => (row, ctx, emit) => {
    const from = row[spec.from]
    const list = row[spec.rel]
    if (!(from instanceof NodeValue) || !Array.isArray(list)) return true
    if (list.length < min || list.length > max) return true
    const types = typeIds(spec, ctx)
    const rels = leftward ? list.slice().reverse() : list
    let current = from.id
    for (const rel of rels) {
      if (!(rel instanceof RelValue)) return true
      walkAdjacency(ctx)
      const type = ctx.graph.relType(rel.id)
      if (type < 0 || (types !== undefined && !types.includes(type))) return true
      const start = ctx.graph.relStart(rel.id)
      const end = ctx.graph.relEnd(rel.id)
      const from = current
      if (spec.direction !== 'in' && start === current) current = end
      else if (spec.direction !== 'out' && end === current) current = start
      else return true
      if (!relPropsOk(spec, rel.id, row, ctx)) return true
      if (
        spec.hop &&
        !(leftward ? spec.hop(current, rel.id, from, row, ctx) : spec.hop(from, rel.id, current, row, ctx))
      )
        return true
    }
    if (spec.toBound) {
      const target = row[spec.to]
      if (!(target instanceof NodeValue) || target.id !== current) return true
    }
    if (spec.toCheck && !spec.toCheck(current, row, ctx)) return true
    if (!spec.toBound) row[spec.to] = new NodeValue(current)
    return next(row, ctx, emit)
  }
}

export function pathStep(slot: number, nodeSlots: number[], relSlots: number[], varLength: boolean[]): Step {
  return (next) => (row, ctx, emit) => {
    const first = row[nodeSlots[0] as number]
    if (!(first instanceof NodeValue)) {
      row[slot] = null
      return next(row, ctx, emit)
    }
    const nodes = [first.id]
    const rels: number[] = []
    for (let i = 0; i < relSlots.length; i++) {
      const value = row[relSlots[i] as number]
      if (varLength[i]) {
        let current = nodes[nodes.length - 1] as number
        for (const rel of value as RelValue[]) {
          rels.push(rel.id)
          const start = ctx.graph.relStart(rel.id)
          current = start === current ? ctx.graph.relEnd(rel.id) : start
          nodes.push(current)
        }
      } else {
        rels.push((value as RelValue).id)
        nodes.push((row[nodeSlots[i + 1] as number] as NodeValue).id)
      }
    }
    row[slot] = new PathValue(nodes, rels)
    return next(row, ctx, emit)
  }
}
