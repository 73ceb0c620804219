import type { Expr, LiteralValue, NodePattern, Query } from '../ast.js'

/** Where a created property's value comes from: a parameter, or a literal written in the query. */
export type ValueSource = { param: string } | { literal: LiteralValue }

/**
 * `CREATE (v:L1:L2 {k: $p, k2: 'lit', …}) [RETURN v [AS x]]`: one node, static labels, a property map of
 * parameters and literals. The shape of most single writes an agent or a driver sends.
 */
export interface NodeCreateShape {
  labels: string[]
  keys: string[]
  values: ValueSource[]
  /** The query returns the created node (its one column). */
  returns: boolean
}

/**
 * The node-create shape of `query`, or undefined for anything else (which runs the general way). Only the
 * shape is read here: the planner has already compiled the same query, so it is valid Cypher.
 */
export function recogniseNodeCreate(query: Query): NodeCreateShape | undefined {
  if (query.explain !== undefined || query.use !== undefined || query.parts.length !== 1) return undefined
  const clauses = query.parts[0]?.clauses ?? []
  const [create, ret] = clauses
  if (create?.kind !== 'create' || clauses.length > 2 || create.pattern.length !== 1) return undefined
  const part = create.pattern[0]
  if (part === undefined || part.variable !== undefined || part.nodes.length !== 1 || part.rels.length > 0)
    return undefined
  if (part.where !== undefined || part.shortest !== undefined) return undefined
  const node = part.nodes[0] as NodePattern
  if (node.labelExpr !== undefined || node.where !== undefined || node.dynamicLabels !== undefined)
    return undefined
  const props = propertySources(node.props)
  if (props === undefined) return undefined
  let returns = false
  if (ret !== undefined) {
    if (ret.kind !== 'return' || node.variable === undefined) return undefined
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
    if (item?.expr.kind !== 'var' || item.expr.name !== node.variable) return undefined
    returns = true
  }
  return { labels: node.labels, keys: props.keys, values: props.values, returns }
}

/** A literal map of parameters and literals (or no map); undefined for any other expression. */
function propertySources(expr: Expr | undefined): { keys: string[]; values: ValueSource[] } | undefined {
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
