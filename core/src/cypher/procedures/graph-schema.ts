import type { PropertyValue } from '../../graph/types.js'
import { type ExecContext, tick } from '../executor/context.js'

/**
 * One pass over (a sample of) the graph that the schema procedures share: node label sets with their
 * properties, relationship types with theirs, and the (start label, type, end label) patterns. At most
 * `sample` nodes of each label set are read and `maxRels` relationships of each node, so the cost stays
 * bounded on a large graph; counts of labels and types come from the store, not from the sample.
 */
export interface PropertyStats {
  /** Neo4j value type names seen: `String`, `Long`, `Double`, `Boolean`, `StringArray`, … */
  types: Set<string>
  /** Sampled records holding the property. */
  count: number
}

export interface NodeTypeStats {
  labels: string[]
  sampled: number
  props: Map<string, PropertyStats>
}

export interface RelTypeStats {
  type: string
  count: number
  sampled: number
  props: Map<string, PropertyStats>
}

export interface GraphSchemaSample {
  /** By label set, `:`A`:`B`` as db.schema.nodeTypeProperties names it. */
  nodeTypes: Map<string, NodeTypeStats>
  /** By single label: its node count and the properties of its sampled nodes. */
  labels: Map<string, { count: number; sampled: number; props: Map<string, PropertyStats> }>
  relTypes: Map<string, RelTypeStats>
  /** `start|type|end` -> sampled count, over single labels of each end. */
  patterns: Map<string, { start: string; type: string; end: string; count: number }>
}

export interface SampleOptions {
  sample: number
  maxRels: number
}

export const FULL_SCAN: SampleOptions = {
  sample: Number.POSITIVE_INFINITY,
  maxRels: Number.POSITIVE_INFINITY,
}

/** Neo4j's Java type name of a stored value (db.schema.*Properties report these). */
export function javaTypeName(value: PropertyValue): string {
  if (Array.isArray(value)) {
    const first = value[0]
    return first === undefined ? 'StringArray' : `${javaTypeName(first)}Array`
  }
  switch (typeof value) {
    case 'string':
      return 'String'
    case 'bigint':
      return 'Long'
    case 'number':
      return 'Double'
    default:
      return 'Boolean'
  }
}

const quoteName = (name: string) => `\`${name.replaceAll('`', '``')}\``

function addProps(
  target: Map<string, PropertyStats>,
  props: Iterable<[number, PropertyValue]>,
  ctx: ExecContext,
) {
  for (const [key, value] of props) {
    const name = ctx.graph.names.name(key)
    let stats = target.get(name)
    if (stats === undefined) {
      stats = { types: new Set(), count: 0 }
      target.set(name, stats)
    }
    stats.types.add(javaTypeName(value))
    stats.count++
  }
}

export function sampleSchema(ctx: ExecContext, options: SampleOptions): GraphSchemaSample {
  const g = ctx.graph
  const out: GraphSchemaSample = {
    nodeTypes: new Map(),
    labels: new Map(),
    relTypes: new Map(),
    patterns: new Map(),
  }
  const relsSeen = new Set<number>()
  const labelNames = (ids: readonly number[]) => ids.map((id) => g.names.name(id))
  for (const id of g.allNodeIds()) {
    tick(ctx)
    const node = g.node(id)
    if (node === undefined) continue
    const labels = labelNames(node.labels).sort()
    const key = labels.map((label) => `:${quoteName(label)}`).join('')
    let type = out.nodeTypes.get(key)
    if (type === undefined) {
      type = { labels, sampled: 0, props: new Map() }
      out.nodeTypes.set(key, type)
    }
    if (type.sampled >= options.sample) continue
    type.sampled++
    addProps(type.props, node.props, ctx)
    for (const label of labels) {
      let stats = out.labels.get(label)
      if (stats === undefined) {
        stats = { count: g.labelCount(g.names.lookup(label)), sampled: 0, props: new Map() }
        out.labels.set(label, stats)
      }
      stats.sampled++
      addProps(stats.props, node.props, ctx)
    }
    let walked = 0
    for (const rel of node.out) {
      if (walked++ >= options.maxRels) break
      tick(ctx)
      const relType = g.names.name(g.relType(rel))
      const end = g.node(g.relEnd(rel))
      const endLabels = end ? labelNames(end.labels) : []
      for (const start of labels.length > 0 ? labels : ['']) {
        for (const endLabel of endLabels.length > 0 ? endLabels : ['']) {
          const patternKey = `${start}\u0000${relType}\u0000${endLabel}`
          const pattern = out.patterns.get(patternKey)
          if (pattern) pattern.count++
          else out.patterns.set(patternKey, { start, type: relType, end: endLabel, count: 1 })
        }
      }
      if (relsSeen.has(rel)) continue
      relsSeen.add(rel)
      let stats = out.relTypes.get(relType)
      if (stats === undefined) {
        stats = { type: relType, count: 0, sampled: 0, props: new Map() }
        out.relTypes.set(relType, stats)
      }
      stats.sampled++
      addProps(stats.props, g.relProps(rel) ?? [], ctx)
    }
  }
  // Relationship counts: sampled nodes see a part of them; count each type in full, cheaply (ids only).
  if (out.relTypes.size > 0) {
    const counts = new Map<number, number>()
    for (const rel of g.allRelIds()) {
      tick(ctx)
      const type = g.relType(rel)
      counts.set(type, (counts.get(type) ?? 0) + 1)
    }
    for (const stats of out.relTypes.values()) stats.count = counts.get(g.names.lookup(stats.type)) ?? 0
  }
  return out
}

export { quoteName }
