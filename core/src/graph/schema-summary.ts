import type { GraphStore } from './store.js'

/** What a workspace graph holds, by name: how many nodes carry each label, relationships each type, and
 * records each property key. One pass over nodes and relationships, for a caller that needs the vocabulary
 * of the graph (an agent writing Cypher) rather than its content. */
export interface GraphSchemaSummary {
  node_count: number
  relationship_count: number
  labels: { label: string; count: number }[]
  relationship_types: { type: string; count: number }[]
  node_property_keys: { key: string; count: number }[]
  relationship_property_keys: { key: string; count: number }[]
}

export function summarizeSchema(store: GraphStore): GraphSchemaSummary {
  const labels = new Map<number, number>()
  const nodeKeys = new Map<number, number>()
  const types = new Map<number, number>()
  const relKeys = new Map<number, number>()
  const bump = (map: Map<number, number>, id: number) => map.set(id, (map.get(id) ?? 0) + 1)
  for (const id of store.allNodeIds()) {
    const node = store.node(id)
    if (node === undefined) continue
    for (const label of node.labels) bump(labels, label)
    for (const key of node.props.keys()) bump(nodeKeys, key)
  }
  for (const id of store.allRelIds()) {
    bump(types, store.relType(id))
    for (const key of store.relProps(id)?.keys() ?? []) bump(relKeys, key)
  }
  // Most frequent first, then by name, so the answer is deterministic and the head is the useful part.
  const named = (map: Map<number, number>) =>
    [...map]
      .map(([id, count]) => ({ name: store.names.name(id), count }))
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return {
    node_count: store.nodeCount(),
    relationship_count: store.relCount(),
    labels: named(labels).map(({ name, count }) => ({ label: name, count })),
    relationship_types: named(types).map(({ name, count }) => ({ type: name, count })),
    node_property_keys: named(nodeKeys).map(({ name, count }) => ({ key: name, count })),
    relationship_property_keys: named(relKeys).map(({ name, count }) => ({ key: name, count })),
  }
}
