import type { GraphReader } from '../graph/types.js'
import { recordOf } from '../own-key.js'
import { encodeTaggedValue, isTaggedValue } from './tagged-value.js'
import { NodeValue, PathValue, RelValue, type Value } from './values.js'

export const nodeElementId = (id: number): string => `node--${id}`
export const relElementId = (id: number): string => `relationship--${id}`

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

export const UNSAFE_INTEGER_WARNING =
  'integers beyond ±(2^53-1) are returned as decimal strings to keep them exact'
export const NON_FINITE_WARNING =
  'NaN and infinite floats are returned as the strings "NaN", "Infinity", "-Infinity"'

/**
 * Converts a Cypher value to JSON: nodes/relationships as objects, exact integers, element ids as strings,
 * temporal values and points tagged (`{"$date": "2015-07-21"}`, `{"$point": {…}}`; docs/cypher-temporal.md,
 * docs/cypher-spatial.md).
 */
export function toJson(value: Value, graph: GraphReader, warnings: Set<string>): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value
  if (typeof value === 'bigint') {
    if (value <= MAX_SAFE && value >= -MAX_SAFE) return Number(value)
    warnings.add(UNSAFE_INTEGER_WARNING)
    return value.toString()
  }
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value
    warnings.add(NON_FINITE_WARNING)
    return String(value)
  }
  if (Array.isArray(value)) return value.map((item) => toJson(item, graph, warnings))
  if (value instanceof Map) {
    return Object.fromEntries([...value].map(([key, item]) => [key, toJson(item, graph, warnings)]))
  }
  if (value instanceof NodeValue) return nodeJson(value.id, graph, warnings)
  if (value instanceof RelValue) return relJson(value.id, graph, warnings)
  if (value instanceof PathValue) {
    return {
      nodes: value.nodes.map((id) => nodeJson(id, graph, warnings)),
      relationships: value.rels.map((id) => relJson(id, graph, warnings)),
    }
  }
  if (isTaggedValue(value)) return encodeTaggedValue(value)
  return null
}

function propsJson(props: ReadonlyMap<number, Value> | undefined, graph: GraphReader, warnings: Set<string>) {
  return recordOf(
    [...(props ?? [])].map(
      ([key, value]) => [graph.names.name(key), toJson(value, graph, warnings)] as const,
    ),
  )
}

function nodeJson(id: number, graph: GraphReader, warnings: Set<string>) {
  const node = graph.node(id)
  return {
    id: nodeElementId(id),
    labels: node ? node.labels.map((label) => graph.names.name(label)) : [],
    properties: propsJson(node?.props, graph, warnings),
  }
}

function relJson(id: number, graph: GraphReader, warnings: Set<string>) {
  const type = graph.relType(id)
  return {
    id: relElementId(id),
    type: type >= 0 ? graph.names.name(type) : null,
    start: type >= 0 ? nodeElementId(graph.relStart(id)) : null,
    end: type >= 0 ? nodeElementId(graph.relEnd(id)) : null,
    properties: propsJson(graph.relProps(id), graph, warnings),
  }
}
