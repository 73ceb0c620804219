import type { GraphReader } from '../graph/types.js'
import { nodeElementId, relElementId } from './result.js'
import type { PointValue } from './spatial/point.js'
import { isTaggedValue } from './tagged-value.js'
import type { TemporalValue } from './temporal/index.js'
import { NodeValue, PathValue, RelValue, type Value } from './values.js'

/**
 * Result values detached from the graph version they were read on, with their types kept: integers stay
 * `bigint` and floats `number` (JSON merges them), maps are `Map`s, and nodes, relationships and paths are
 * classes (a JSON node is only a map with an `id`). What a typed door (Bolt) sends; the JSON form is `toJson`.
 */
export class DetachedNode {
  constructor(
    readonly id: number,
    readonly labels: string[],
    readonly properties: Map<string, DetachedValue>,
  ) {}
  get elementId(): string {
    return nodeElementId(this.id)
  }
}

export class DetachedRelationship {
  constructor(
    readonly id: number,
    readonly type: string,
    readonly startId: number,
    readonly endId: number,
    readonly properties: Map<string, DetachedValue>,
  ) {}
  get elementId(): string {
    return relElementId(this.id)
  }
}

/** `nodes.length === relationships.length + 1`; relationship i joins nodes i and i + 1 in either direction. */
export class DetachedPath {
  constructor(
    readonly nodes: DetachedNode[],
    readonly relationships: DetachedRelationship[],
  ) {}
}

export type DetachedValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | DetachedValue[]
  | Map<string, DetachedValue>
  | DetachedNode
  | DetachedRelationship
  | DetachedPath
  | TemporalValue
  | PointValue

/** Reads a result value out of the graph version it refers to. */
export function detach(value: Value, graph: GraphReader): DetachedValue {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => detach(item, graph))
  if (value instanceof Map) {
    const out = new Map<string, DetachedValue>()
    for (const [key, item] of value) out.set(key, detach(item, graph))
    return out
  }
  if (value instanceof NodeValue) return detachNode(value.id, graph)
  if (value instanceof RelValue) return detachRel(value.id, graph)
  // Temporal values and points are immutable and refer to no graph: they pass as they are.
  if (isTaggedValue(value)) return value
  if (value instanceof PathValue) {
    return new DetachedPath(
      value.nodes.map((id) => detachNode(id, graph)),
      value.rels.map((id) => detachRel(id, graph)),
    )
  }
  return null
}

function detachProps(props: ReadonlyMap<number, Value> | undefined, graph: GraphReader) {
  const out = new Map<string, DetachedValue>()
  for (const [key, value] of props ?? []) out.set(graph.names.name(key), detach(value, graph))
  return out
}

function detachNode(id: number, graph: GraphReader): DetachedNode {
  const node = graph.node(id)
  return new DetachedNode(
    id,
    node ? node.labels.map((label) => graph.names.name(label)) : [],
    detachProps(node?.props, graph),
  )
}

function detachRel(id: number, graph: GraphReader): DetachedRelationship {
  const type = graph.relType(id)
  return new DetachedRelationship(
    id,
    type >= 0 ? graph.names.name(type) : '',
    type >= 0 ? graph.relStart(id) : -1,
    type >= 0 ? graph.relEnd(id) : -1,
    detachProps(graph.relProps(id), graph),
  )
}

/**
 * About the bytes the value takes as JSON, without building the text: the payload budget applies to a
 * detached result as to a JSON one.
 */
export function detachedBytes(value: DetachedValue): number {
  if (value === null) return 4
  switch (typeof value) {
    case 'boolean':
      return 5
    case 'bigint':
    case 'number':
      return String(value).length
    case 'string':
      return value.length + 2
  }
  if (Array.isArray(value)) {
    let total = 2
    for (const item of value) total += detachedBytes(item) + 1
    return total
  }
  if (value instanceof Map) return mapBytes(value)
  if (value instanceof DetachedNode) {
    let total = 40 + mapBytes(value.properties)
    for (const label of value.labels) total += label.length + 3
    return total
  }
  if (value instanceof DetachedRelationship) return 80 + value.type.length + mapBytes(value.properties)
  if (!(value instanceof DetachedPath)) return 40 // a temporal value's tagged JSON form
  let total = 30
  for (const node of value.nodes) total += detachedBytes(node) + 1
  for (const rel of value.relationships) total += detachedBytes(rel) + 1
  return total
}

function mapBytes(map: Map<string, DetachedValue>): number {
  let total = 2
  for (const [key, item] of map) total += key.length + 4 + detachedBytes(item)
  return total
}
