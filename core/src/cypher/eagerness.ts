import { children } from './analyzer.js'
import type { Clause, Expr, NodePattern, PatternPart } from './ast.js'

/**
 * Whether a write query must collect every row of clause `index` before the next clause starts (Cypher's
 * eagerness). A clause that updates must not change what a read before it is still streaming (the Halloween
 * problem: `MATCH (n:P) CREATE (:P)` would match its own nodes), and the reads after an update see all of it.
 * Collecting costs memory and an array and stage per row (a tenth of a `LOAD CSV … CALL { MATCH … CREATE }`
 * load), so it is left out where nothing can tell the difference:
 * - between two reading clauses (rows reach the update only through an eager before it);
 * - before an update that only creates relationships between nodes already bound (`MATCH (a:A {id: 1}),
 *   (b:B {id: 2}) CREATE (a)-[:R]->(b)`, or MERGE of such a relationship), when every clause before it reads
 *   nodes only, through labels: a created relationship changes no node, no label or property index, and
 *   nothing those reads look at. A scan of all nodes is not safe that way (a transaction lists a node
 *   it added a relationship to among its own), nor is any pattern, subquery or relationship read.
 * `bound(name)`: whether a variable is bound once clause `index` has run.
 */
export function needsEager(
  clauses: readonly Clause[],
  index: number,
  bound: (name: string) => boolean,
): boolean {
  const next = clauses[index + 1]
  if (next === undefined) return false
  if (reads(clauses[index] as Clause) && reads(next)) return false
  return !(createsOnlyRelationships(next, bound) && clauses.slice(0, index + 1).every(readsNodesOnly))
}

/** A clause that reads and never writes (its expressions cannot write either). */
function reads(clause: Clause): boolean {
  switch (clause.kind) {
    case 'match':
    case 'unwind':
    case 'with':
    case 'loadCsv':
    case 'return':
    case 'finish':
      return true
    default:
      return false
  }
}

/** A reading clause that sees nodes only, found through their labels (see needsEager). */
function readsNodesOnly(clause: Clause): boolean {
  switch (clause.kind) {
    case 'loadCsv':
      return !readsGraph(clause.url)
    case 'unwind':
      return !readsGraph(clause.expr)
    case 'with': {
      const { items, orderBy, skip, limit } = clause.projection
      return (
        items.every((item) => !readsGraph(item.expr)) &&
        orderBy.every((item) => !readsGraph(item.expr)) &&
        !readsGraph(skip) &&
        !readsGraph(limit) &&
        !readsGraph(clause.where)
      )
    }
    case 'match':
      return clause.pattern.every(labelledNodes) && !readsGraph(clause.where)
    default:
      return false
  }
}

/** A pattern of nodes alone, each with a label to be found by (no scan of all nodes). */
function labelledNodes(part: PatternPart): boolean {
  return (
    part.rels.length === 0 &&
    part.shortest === undefined &&
    !readsGraph(part.where) &&
    part.nodes.every(
      (node) =>
        node.labels.length > 0 &&
        node.labelExpr === undefined &&
        node.dynamicLabels === undefined &&
        !readsGraph(node.props) &&
        !readsGraph(node.where),
    )
  )
}

/** CREATE or MERGE of relationships between nodes already bound, changing no node. */
function createsOnlyRelationships(clause: Clause, bound: (name: string) => boolean): boolean {
  const bare = (node: NodePattern): boolean =>
    node.variable !== undefined &&
    bound(node.variable) &&
    node.labels.length === 0 &&
    node.labelExpr === undefined &&
    node.dynamicLabels === undefined &&
    node.props === undefined &&
    node.where === undefined
  const relationshipsOnly = (part: PatternPart): boolean =>
    part.rels.length > 0 && part.rels.every((rel) => rel.varLength === undefined) && part.nodes.every(bare)
  if (clause.kind === 'create') return clause.pattern.every(relationshipsOnly)
  if (clause.kind !== 'merge' || !relationshipsOnly(clause.part)) return false
  // ON CREATE / ON MATCH may set properties of the merged relationships only (a node's would be a change).
  const rels = new Set(clause.part.rels.map((rel) => rel.variable).filter((name) => name !== undefined))
  return [...clause.onCreate, ...clause.onMatch].every(
    (item) =>
      item.kind === 'setProperty' &&
      item.target.kind === 'prop' &&
      item.target.target.kind === 'var' &&
      rels.has(item.target.target.name),
  )
}

/** Whether evaluating the expression reads the graph beyond the values it is given (patterns, subqueries). */
function readsGraph(expr: Expr | undefined): boolean {
  if (expr === undefined) return false
  if (expr.kind === 'patternExists' || expr.kind === 'patternComp' || expr.kind === 'subquery') return true
  return children(expr).some(readsGraph)
}
