/** Nodes and relationships found anywhere in a Cypher result (cells, lists, maps, paths), for the graph view. */
export interface CypherNode {
  id: string
  labels: string[]
  properties: Record<string, unknown>
}
export interface CypherRelationship {
  id: string
  type: string
  start: string
  end: string
  properties: Record<string, unknown>
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
const isNode = (v: Record<string, unknown>): boolean =>
  typeof v.id === 'string' && v.id.startsWith('node--') && Array.isArray(v.labels) && isObject(v.properties)
const isRelationship = (v: Record<string, unknown>): boolean =>
  typeof v.id === 'string' &&
  v.id.startsWith('relationship--') &&
  typeof v.type === 'string' &&
  typeof v.start === 'string' &&
  typeof v.end === 'string'

export function graphOfRows(rows: readonly unknown[][]): {
  nodes: CypherNode[]
  relationships: CypherRelationship[]
} {
  const nodes = new Map<string, CypherNode>()
  const relationships = new Map<string, CypherRelationship>()
  const stack: unknown[] = rows.flat()
  while (stack.length > 0) {
    const v = stack.pop()
    if (Array.isArray(v)) stack.push(...v)
    else if (isObject(v)) {
      if (isNode(v)) nodes.set(v.id as string, v as unknown as CypherNode)
      else if (isRelationship(v)) relationships.set(v.id as string, v as unknown as CypherRelationship)
      else stack.push(...Object.values(v))
    }
  }
  return { nodes: [...nodes.values()], relationships: [...relationships.values()] }
}
