import type { DrawEdge, DrawNode } from './graph-view.js'
import { displayName } from './records.js'
import type { Projection } from './types.js'

/**
 * What the graph view draws for a projection; with a compared one, the records only it holds are added as
 * ghosts so "removed" (or "added later") shows.
 */
export function projectionDrawing(
  projection: Projection,
  other: Projection | null,
): { nodes: DrawNode[]; edges: DrawEdge[] } {
  const nodes: DrawNode[] = projection.nodes.map((n) => ({
    id: n.id,
    labels: n.labels,
    title: displayName(n),
  }))
  const edges: DrawEdge[] = projection.relationships.map((r) => ({
    id: r.id,
    source: r.source,
    target: r.target,
    type: r.relationship_type,
  }))
  if (other !== null) {
    const shownNodes = new Set(projection.nodes.map((n) => n.id))
    const shownRelationships = new Set(projection.relationships.map((r) => r.id))
    for (const n of other.nodes)
      if (!shownNodes.has(n.id))
        nodes.push({ id: n.id, labels: n.labels, title: displayName(n), ghost: true })
    for (const r of other.relationships)
      if (!shownRelationships.has(r.id))
        edges.push({ id: r.id, source: r.source, target: r.target, type: r.relationship_type, ghost: true })
  }
  return { nodes, edges }
}
