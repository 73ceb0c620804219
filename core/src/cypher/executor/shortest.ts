import { NodeValue, PathValue, RelValue } from '../values.js'
import type { ExecContext, Row } from './context.js'
import { tick } from './context.js'
import { type ExpandSpec, forEachRel, relPropsOk, typeIds } from './expand.js'
import type { Step } from './steps.js'

/**
 * Shortest paths between two bound nodes: `shortestPath`, `allShortestPaths`, `SHORTEST k`, `ALL SHORTEST`,
 * `ANY k`. One shortest path comes from a breadth-first search from both ends; all of the shortest length from
 * one that keeps, for each node reached, the relationships that reach it at its depth. Both stop at the depth
 * the ends meet, so they read the neighbourhood up to that depth once, never every path (each relationship
 * read counts against the adjacency budget). `SHORTEST k` with k > 1 then
 * needs longer paths too: those come from a depth-first walk by increasing length, which stops at k.
 */
export interface ShortestSpec extends ExpandSpec {
  min: number
  max: number
  all: boolean
  k: number
  /** Slot of the path variable, or -1. */
  path: number
  /** The relationship variable is a list (a variable-length pattern). */
  relList: boolean
  /** `SHORTEST k GROUPS`: every path of each of the k shortest lengths. */
  groups?: boolean
  /** A parenthesised pattern's WHERE: only the paths it accepts count (found by the walk by length). */
  accept?: (nodes: number[], rels: number[], row: Row, ctx: ExecContext) => boolean
}

interface Found {
  nodes: number[]
  rels: number[]
}

export function shortestStep(spec: ShortestSpec): Step {
  return (next) => (row, ctx, emit) => {
    const from = row[spec.from]
    const to = row[spec.to]
    if (!(from instanceof NodeValue) || !(to instanceof NodeValue)) return true
    if (spec.toCheck && !spec.toCheck(to.id, row, ctx)) return true
    const breadthFirst =
      spec.min <= 1 && spec.k === 1 && !spec.groups && !spec.accept && !(spec.all && from.id === to.id)
    const paths = !breadthFirst
      ? byLength(spec, row, ctx, from.id, to.id)
      : spec.all || from.id === to.id
        ? layeredSearch(spec, row, ctx, from.id, to.id)
        : bidirectionalSearch(spec, row, ctx, from.id, to.id)
    for (const path of paths) {
      const rels = path.rels.map((id) => new RelValue(id))
      row[spec.rel] = spec.relList ? rels : (rels[0] ?? null)
      if (spec.path >= 0) row[spec.path] = new PathValue(path.nodes, path.rels)
      if (!next(row, ctx, emit)) return false
    }
    return true
  }
}

const hopOk = (
  spec: ShortestSpec,
  left: number,
  rel: number,
  right: number,
  row: Row,
  ctx: ExecContext,
): boolean => spec.hop === undefined || spec.hop(left, rel, right, row, ctx)

/** BFS by layers from `start`, with every predecessor relationship at the shortest depth of each node. */
function layeredSearch(
  spec: ShortestSpec,
  row: Row,
  ctx: ExecContext,
  start: number,
  target: number,
): Found[] {
  if (start === target)
    return spec.min === 0 ? [{ nodes: [start], rels: [] }] : sameNodeCycle(spec, row, ctx, start)
  const types = typeIds(spec, ctx)
  const depth = new Map<number, number>([[start, 0]])
  const parents = new Map<number, [number, number][]>()
  let frontier = [start]
  for (let level = 1; level <= spec.max && frontier.length > 0 && !depth.has(target); level++) {
    const nextFrontier: number[] = []
    for (const node of frontier) {
      tick(ctx)
      forEachRel(ctx, node, spec.direction, types, (rel, other) => {
        if (!relPropsOk(spec, rel, row, ctx) || !hopOk(spec, node, rel, other, row, ctx)) return true
        const seen = depth.get(other)
        if (seen === undefined) {
          depth.set(other, level)
          parents.set(other, [[rel, node]])
          nextFrontier.push(other)
        } else if (seen === level) parents.get(other)?.push([rel, node])
        return true
      })
    }
    frontier = nextFrontier
  }
  if (!depth.has(target)) return []
  const out: Found[] = []
  const walk = (node: number, nodes: number[], rels: number[]): boolean => {
    if (node === start) {
      out.push({ nodes: [start, ...nodes], rels: [...rels] })
      return spec.all
    }
    for (const [rel, parent] of parents.get(node) ?? []) {
      if (rels.includes(rel)) continue
      if (!walk(parent, [node, ...nodes], [rel, ...rels])) return false
    }
    return true
  }
  walk(target, [], [])
  return out
}

/**
 * One shortest path by a breadth-first search from both ends, a layer at a time on the smaller frontier: it
 * reads about the square root of what a one-sided search reads when the ends are far apart.
 */
function bidirectionalSearch(
  spec: ShortestSpec,
  row: Row,
  ctx: ExecContext,
  start: number,
  target: number,
): Found[] {
  const types = typeIds(spec, ctx)
  const backward = spec.direction === 'out' ? 'in' : spec.direction === 'in' ? 'out' : 'both'
  // node -> [relationship, neighbour towards its own end]; the ends map to themselves.
  const fromStart = new Map<number, [number, number] | null>([[start, null]])
  const fromTarget = new Map<number, [number, number] | null>([[target, null]])
  let startFrontier = [start]
  let targetFrontier = [target]
  let meet: number | undefined
  let depth = 0
  while (meet === undefined && depth < spec.max && startFrontier.length > 0 && targetFrontier.length > 0) {
    depth++
    const forward = startFrontier.length <= targetFrontier.length
    const seen = forward ? fromStart : fromTarget
    const other = forward ? fromTarget : fromStart
    const next: number[] = []
    for (const node of forward ? startFrontier : targetFrontier) {
      tick(ctx)
      forEachRel(ctx, node, forward ? spec.direction : backward, types, (rel, neighbour) => {
        if (seen.has(neighbour) || !relPropsOk(spec, rel, row, ctx)) return true
        // From the target's side the hop is walked against the pattern's orientation.
        if (
          !(forward
            ? hopOk(spec, node, rel, neighbour, row, ctx)
            : hopOk(spec, neighbour, rel, node, row, ctx))
        )
          return true
        seen.set(neighbour, [rel, node])
        if (other.has(neighbour)) {
          meet = neighbour
          return false
        }
        next.push(neighbour)
        return true
      })
      if (meet !== undefined) break
    }
    if (forward) startFrontier = next
    else targetFrontier = next
  }
  if (meet === undefined) return []
  const nodes = [meet]
  const rels: number[] = []
  for (let step = fromStart.get(meet); step; step = fromStart.get(step[1])) {
    rels.unshift(step[0])
    nodes.unshift(step[1])
  }
  for (let step = fromTarget.get(meet); step; step = fromTarget.get(step[1])) {
    rels.push(step[0])
    nodes.push(step[1])
  }
  return [{ nodes, rels }]
}

/** A path from a node back to itself has length at least 1: found by the length-ordered walk. */
function sameNodeCycle(spec: ShortestSpec, row: Row, ctx: ExecContext, node: number): Found[] {
  return byLength({ ...spec, min: Math.max(spec.min, 1) }, row, ctx, node, node)
}

/** Paths by increasing length (each relationship once a path), until `k` are found (all of the shortest length for ALL). */
function byLength(spec: ShortestSpec, row: Row, ctx: ExecContext, start: number, target: number): Found[] {
  const types = typeIds(spec, ctx)
  const out: Found[] = []
  const nodes = [start]
  const rels: number[] = []
  // For GROUPS: how many paths were found once each length that gave some was done (after a leading 0).
  const lengthsFound = [0]
  for (let length = spec.min; length <= spec.max; length++) {
    // No walk as long as this one means none longer either (each relationship once a path): stop there.
    let reached = length === 0
    if (length === 0) {
      if (start === target) out.push({ nodes: [start], rels: [] })
    } else {
      const walk = (node: number): boolean => {
        tick(ctx)
        if (rels.length === length) {
          reached = true
          if (node === target && (spec.accept === undefined || spec.accept(nodes, rels, row, ctx)))
            out.push({ nodes: nodes.slice(), rels: rels.slice() })
          return spec.all || out.length < spec.k
        }
        return forEachRel(ctx, node, spec.direction, types, (rel, other) => {
          if (rels.includes(rel) || !relPropsOk(spec, rel, row, ctx)) return true
          if (!hopOk(spec, node, rel, other, row, ctx)) return true
          rels.push(rel)
          nodes.push(other)
          const go = walk(other)
          rels.pop()
          nodes.pop()
          return go
        })
      }
      walk(start)
    }
    if (spec.groups) {
      if (out.length > (lengthsFound[lengthsFound.length - 1] as number)) lengthsFound.push(out.length)
      if (lengthsFound.length > spec.k) break
    } else if (out.length > 0 && (spec.all || out.length >= spec.k)) break
    if (!reached) break
  }
  return spec.all ? out : out.slice(0, spec.k)
}
