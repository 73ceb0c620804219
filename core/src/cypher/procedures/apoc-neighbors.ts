import { runtimeError, typeError } from '../errors.js'
import { tick } from '../executor/context.js'
import { forEachRel } from '../executor/expand.js'
import { NodeValue, type Value } from '../values.js'
import type { ProcedureContext, ProcedureDef } from './registry.js'

/**
 * APOC's neighbourhood procedures: the nodes within (`tohop`), exactly at (`athop`) or hop by hop (`byhop`) a
 * distance from a node, following a relationship pattern string: `KNOWS>` outgoing, `<KNOWS` incoming, `KNOWS`
 * either way, alternatives joined by `|`; an empty pattern follows every relationship. A node counts at the
 * first distance it is reached, the start node never.
 */
interface Step {
  /** Type id, or undefined for any type. */
  type: number | undefined
  direction: 'out' | 'in' | 'both'
}

function parseRelPattern(ctx: ProcedureContext, pattern: string): Step[] {
  if (pattern.trim() === '') return [{ type: undefined, direction: 'both' }]
  return pattern.split('|').map((raw) => {
    let text = raw.trim()
    let direction: Step['direction'] = 'both'
    if (text.startsWith('<')) {
      direction = 'in'
      text = text.slice(1)
    } else if (text.endsWith('>')) {
      direction = 'out'
      text = text.slice(0, -1)
    }
    if (text.startsWith('<') || text.endsWith('>') || text.includes('>') || text.includes('<'))
      throw runtimeError('INVALID_ARGUMENT_VALUE', `a relationship pattern cannot point both ways: '${raw}'`)
    // An unknown type matches nothing (-1 is no type id).
    return { type: text === '' ? undefined : ctx.graph.names.lookup(text), direction }
  })
}

/** The nodes newly reached at each distance 1..distance (the first layer first). */
function layers(ctx: ProcedureContext, args: Value[]): number[][] {
  const [node, pattern, distance] = args
  if (node === null || node === undefined) return []
  if (!(node instanceof NodeValue)) throw typeError('the start must be a node')
  if (pattern !== null && pattern !== undefined && typeof pattern !== 'string')
    throw typeError('the relationship pattern must be a string')
  const steps = parseRelPattern(ctx, (pattern as string | null | undefined) ?? '')
  const depth = distance === null || distance === undefined ? 1n : distance
  if (typeof depth !== 'bigint' || depth < 1n)
    throw runtimeError('INVALID_ARGUMENT_VALUE', 'the distance must be a positive integer')
  const seen = new Set<number>([node.id])
  const out: number[][] = []
  let frontier = [node.id]
  for (let level = 0n; level < depth && frontier.length > 0; level++) {
    const next: number[] = []
    for (const id of frontier) {
      tick(ctx)
      for (const step of steps) {
        const types = step.type === undefined ? undefined : [step.type]
        forEachRel(ctx, id, step.direction, types, (_rel, other) => {
          if (!seen.has(other)) {
            seen.add(other)
            next.push(other)
          }
          return true
        })
      }
    }
    out.push(next)
    frontier = next
  }
  return out
}

const PARAMS = [
  { name: 'node', type: 'NODE' },
  { name: 'relTypes', type: 'STRING', default: '' },
  { name: 'distance', type: 'INTEGER', default: 1n },
]
const nodes = (ids: number[]): Value[] => ids.map((id) => new NodeValue(id))

export const APOC_NEIGHBOR_PROCEDURES: ProcedureDef[] = [
  {
    name: 'apoc.neighbors.tohop',
    description: 'Returns every node within the given distance, following the relationship pattern.',
    mode: 'READ',
    params: PARAMS,
    outputs: [{ name: 'node', type: 'NODE' }],
    run: (args, ctx) => layers(ctx, args).flatMap((layer) => layer.map((id) => [new NodeValue(id)])),
  },
  {
    name: 'apoc.neighbors.tohop.count',
    description: 'Returns the count of nodes within the given distance.',
    mode: 'READ',
    params: PARAMS,
    outputs: [{ name: 'value', type: 'INTEGER' }],
    run: (args, ctx) => [[BigInt(layers(ctx, args).reduce((n, layer) => n + layer.length, 0))]],
  },
  {
    name: 'apoc.neighbors.athop',
    description: 'Returns the nodes at exactly the given distance, following the relationship pattern.',
    mode: 'READ',
    params: PARAMS,
    outputs: [{ name: 'node', type: 'NODE' }],
    run: (args, ctx) => {
      const all = layers(ctx, args)
      const depth = Number((args[2] as bigint | null | undefined) ?? 1n)
      return (all.length === depth ? (all[depth - 1] as number[]) : []).map((id) => [new NodeValue(id)])
    },
  },
  {
    name: 'apoc.neighbors.byhop',
    description: 'Returns the nodes at each distance up to the given one, a list a distance.',
    mode: 'READ',
    params: PARAMS,
    outputs: [{ name: 'nodes', type: 'LIST<NODE>' }],
    run: (args, ctx) => layers(ctx, args).map((layer) => [nodes(layer)]),
  },
]
