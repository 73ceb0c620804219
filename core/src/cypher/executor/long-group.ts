import type { Scope } from '../analyzer.js'
import type { NodePattern, RelPattern } from '../ast.js'
import type { Eval } from '../compile-expr.js'
import { NodeValue, RelValue, truth, type Value } from '../values.js'
import { tick } from './context.js'
import { type ExpandSpec, forEachRel, relPropsOk, relUsed, typeIds } from './expand.js'
import type { HopEnv } from './quantified-group.js'
import type { NodeCheck, PropCheck, Step } from './steps.js'

/**
 * A quantified group of several hops, `(a) ((x)-[r:R]->(y)-[s:S]->(z) WHERE …){1,3} (b)`: the chain is walked
 * again and again from where the last repetition ended (each relationship once in the whole match), its WHERE
 * checked per repetition with the chain's variables bound singly; after the match every chain variable is the
 * list of what it met, one item a repetition, in the pattern's order.
 */
export interface LongGroup {
  /** Slot of the node the walk leaves from, and of the node it must end on (bound or to bind). */
  from: number
  to: number
  toBound: boolean
  toCheck: NodeCheck
  /** Every relationship met, in pattern order (the group's relationship variable). */
  relList: number
  /** Relationship slots bound earlier in the MATCH: relationship isomorphism. */
  used: { slot: number; list: boolean }[]
  min: number
  max: number
  /** The walk goes from the pattern's right to its left. */
  leftward: boolean
}

/** The variables of a long group's chain: each bound to a list after the match. */
export function longGroupVariables(rel: RelPattern): string[] {
  const names: string[] = []
  for (const element of [...(rel.group?.nodes ?? []), ...(rel.group?.rels ?? [])])
    if (element.variable !== undefined && !names.includes(element.variable)) names.push(element.variable)
  return names
}

interface Link {
  spec: ExpandSpec
  /** The node this hop reaches must pass it. */
  check: NodeCheck
}

/** Compiles a long group's walk; `lists` maps each chain variable to the slot of its list. */
export function longGroupStep(
  env: HopEnv,
  rel: RelPattern,
  scope: Scope,
  group: LongGroup,
  lists: Map<string, number>,
  compileNode: (node: NodePattern) => NodeCheck,
  compileProps: (rel: RelPattern) => PropCheck,
): Step {
  const chain = rel.group as { nodes: NodePattern[]; rels: RelPattern[] }
  const hops = chain.rels.length
  // Walking leftward, the chain is walked from its last node, each relationship against its written direction.
  const order = [...chain.nodes.keys()]
  if (group.leftward) order.reverse()
  const links: Link[] = []
  for (let j = 0; j < hops; j++) {
    const index = group.leftward ? hops - 1 - j : j
    const inner = chain.rels[index] as RelPattern
    const direction = !group.leftward
      ? inner.direction
      : inner.direction === 'out'
        ? 'in'
        : inner.direction === 'in'
          ? 'out'
          : 'both'
    links.push({
      spec: {
        from: -1,
        rel: -1,
        relBound: false,
        to: -1,
        toBound: false,
        types: inner.types,
        typeExpr: inner.typeExpr,
        direction,
        relCheck: inner.props ? compileProps(inner) : undefined,
        toCheck: undefined,
        used: [],
      },
      check: compileNode(chain.nodes[order[j + 1] as number] as NodePattern),
    })
  }
  const firstCheck = compileNode(chain.nodes[order[0] as number] as NodePattern)
  // The group's predicates, with the chain's variables bound singly to slots of their own.
  let where: Eval | undefined
  const nodeSlots = chain.nodes.map(() => -1)
  const relSlots = chain.rels.map(() => -1)
  if (rel.hopWhere !== undefined) {
    const inner = scope.copy()
    const slotOf = new Map<string, number>()
    const bind = (name: string | undefined, kind: 'node' | 'rel'): number => {
      if (name === undefined) return -1
      const known = slotOf.get(name)
      if (known !== undefined) return known
      const slot = env.allocSlot()
      slotOf.set(name, slot)
      inner.define(name, { slot, kind })
      return slot
    }
    chain.nodes.forEach((node, i) => {
      nodeSlots[i] = bind(node.variable, 'node')
    })
    chain.rels.forEach((r, i) => {
      relSlots[i] = bind(r.variable, 'rel')
    })
    where = env.exprs.compile(rel.hopWhere, inner)
  }
  const nodeLists = chain.nodes.map((node) =>
    node.variable !== undefined ? (lists.get(node.variable) ?? -1) : -1,
  )
  const relLists = chain.rels.map((r) => (r.variable !== undefined ? (lists.get(r.variable) ?? -1) : -1))
  return (next) => (row, ctx, emit) => {
    const from = row[group.from]
    if (!(from instanceof NodeValue)) return true
    const target = group.toBound ? row[group.to] : undefined
    if (group.toBound && !(target instanceof NodeValue)) return true
    const types = links.map((link) => typeIds(link.spec, ctx))
    const met: number[] = []
    // One repetition: its nodes and relationships in the chain's written order.
    const repetitions: { nodes: number[]; rels: number[] }[] = []
    const arrive = (node: number): boolean => {
      if (target !== undefined && (target as NodeValue).id !== node) return true
      if (group.toCheck && !group.toCheck(node, row, ctx)) return true
      const ordered = group.leftward ? repetitions.slice().reverse() : repetitions
      nodeLists.forEach((slot, i) => {
        if (slot >= 0) row[slot] = ordered.map((r) => new NodeValue(r.nodes[i] as number))
      })
      relLists.forEach((slot, i) => {
        if (slot >= 0) row[slot] = ordered.map((r) => new RelValue(r.rels[i] as number))
      })
      row[group.relList] = ordered.flatMap((r) => r.rels.map((id) => new RelValue(id)))
      if (!group.toBound) row[group.to] = new NodeValue(node)
      return next(row, ctx, emit)
    }
    const passes = (nodes: number[], rels: number[]): boolean => {
      if (where === undefined) return true
      nodes.forEach((id, i) => {
        if (nodeSlots[i] !== -1) row[nodeSlots[i] as number] = new NodeValue(id)
      })
      rels.forEach((id, i) => {
        if (relSlots[i] !== -1) row[relSlots[i] as number] = new RelValue(id)
      })
      return truth(where(row, ctx) as Value) === true
    }
    const repeat = (node: number, count: number): boolean => {
      tick(ctx)
      if (count >= group.min && !arrive(node)) return false
      if (count === group.max) return true
      if (firstCheck && !firstCheck(node, row, ctx)) return true
      const walked = [node]
      const taken: number[] = []
      const hop = (j: number, current: number): boolean => {
        if (j === hops) {
          // The chain in its written order, whichever way it was walked.
          const nodes = group.leftward ? walked.slice().reverse() : walked.slice()
          const rels = group.leftward ? taken.slice().reverse() : taken.slice()
          if (!passes(nodes, rels)) return true
          repetitions.push({ nodes, rels })
          const go = repeat(current, count + 1)
          repetitions.pop()
          return go
        }
        const link = links[j] as Link
        return forEachRel(ctx, current, link.spec.direction, types[j], (r, other) => {
          if (met.includes(r) || relUsed({ ...link.spec, used: group.used }, row, r)) return true
          if (!relPropsOk(link.spec, r, row, ctx)) return true
          if (link.check && !link.check(other, row, ctx)) return true
          met.push(r)
          walked.push(other)
          taken.push(r)
          const go = hop(j + 1, other)
          met.pop()
          walked.pop()
          taken.pop()
          return go
        })
      }
      return hop(0, node)
    }
    return repeat(from.id, 0)
  }
}
