import type { Expr, LiteralValue, NodePattern, PatternPart, Query, RelPattern } from '../ast.js'

/** Where a created property's value comes from: a parameter, or a literal written in the query. */
export type ValueSource = { param: string } | { literal: LiteralValue }

/** A property map of parameters and literals, keys in the order written. */
export interface PropsShape {
  keys: string[]
  values: ValueSource[]
}

export interface NodeShape extends PropsShape {
  labels: string[]
}

export interface RelShape extends PropsShape {
  type: string
  /** `<-[:T]-`: the relationship starts at the node after it. */
  inward: boolean
}

/** One pattern part: nodes[i] and nodes[i + 1] joined by rels[i]. */
export interface PartShape {
  nodes: NodeShape[]
  rels: RelShape[]
}

/**
 * `CREATE (a:L {k: $p, …})-[:T {…}]->(b:M {…}), … [RETURN v [AS x]]`: every node new (static labels), every
 * relationship of one type and a direction, every property map made of parameters and literals. The shape of
 * most single writes an agent or a driver sends.
 */
export interface CreateShape {
  parts: PartShape[]
  /** The element the query returns (its one column): a node or a relationship, by part and position. */
  returns: { part: number; kind: 'node' | 'rel'; index: number } | undefined
}

/**
 * The create shape of `query`, or undefined for anything else (which runs the general way). Only the shape is
 * read here: the planner has already compiled the same query, so it is valid Cypher.
 */
export function recogniseCreate(query: Query): CreateShape | undefined {
  if (query.explain !== undefined || query.use !== undefined || query.parts.length !== 1) return undefined
  const clauses = query.parts[0]?.clauses ?? []
  const [create, ret] = clauses
  if (create?.kind !== 'create' || clauses.length > 2) return undefined
  const variables = new Map<string, CreateShape['returns']>()
  const parts: PartShape[] = []
  for (const [p, part] of create.pattern.entries()) {
    const shape = partShape(part)
    if (shape === undefined) return undefined
    // Each variable names a new element once: a repeated one joins elements (the general path does that).
    const named = [
      ...part.nodes.map((node, index) => [node.variable, { part: p, kind: 'node', index }] as const),
      ...part.rels.map((rel, index) => [rel.variable, { part: p, kind: 'rel', index }] as const),
    ]
    for (const [name, element] of named) {
      if (name === undefined) continue
      if (variables.has(name)) return undefined
      variables.set(name, element)
    }
    parts.push(shape)
  }
  let returns: CreateShape['returns']
  if (ret !== undefined) {
    if (ret.kind !== 'return') return undefined
    const { distinct, star, items, orderBy, skip, limit } = ret.projection
    const item = items[0]
    if (
      distinct ||
      star ||
      items.length !== 1 ||
      orderBy.length > 0 ||
      skip !== undefined ||
      limit !== undefined
    )
      return undefined
    if (item?.expr.kind !== 'var') return undefined
    returns = variables.get(item.expr.name)
    if (returns === undefined) return undefined
  }
  return { parts, returns }
}

function partShape(part: PatternPart): PartShape | undefined {
  if (part.variable !== undefined || part.where !== undefined || part.shortest !== undefined) return undefined
  const nodes: NodeShape[] = []
  for (const node of part.nodes) {
    const shape = nodeShape(node)
    if (shape === undefined) return undefined
    nodes.push(shape)
  }
  const rels: RelShape[] = []
  for (const rel of part.rels) {
    const shape = relShape(rel)
    if (shape === undefined) return undefined
    rels.push(shape)
  }
  return { nodes, rels }
}

function nodeShape(node: NodePattern): NodeShape | undefined {
  if (node.labelExpr !== undefined || node.where !== undefined || node.dynamicLabels !== undefined)
    return undefined
  const props = propsShape(node.props)
  return props && { labels: node.labels, ...props }
}

function relShape(rel: RelPattern): RelShape | undefined {
  const type = rel.types[0]
  if (type === undefined || rel.types.length !== 1 || rel.direction === 'both' || rel.varLength !== undefined)
    return undefined
  if (rel.typeExpr || rel.where || rel.group || rel.hopNodes || rel.hopWhere) return undefined
  const props = propsShape(rel.props)
  return props && { type, inward: rel.direction === 'in', ...props }
}

/** A literal map of parameters and literals (or no map); undefined for any other expression. */
function propsShape(expr: Expr | undefined): PropsShape | undefined {
  if (expr === undefined) return { keys: [], values: [] }
  if (expr.kind !== 'map') return undefined
  const keys: string[] = []
  const values: ValueSource[] = []
  for (const [key, value] of expr.entries) {
    if (value.kind === 'param') values.push({ param: value.name })
    else if (value.kind === 'literal') values.push({ literal: value.value })
    else return undefined
    keys.push(key)
  }
  return { keys, values }
}
