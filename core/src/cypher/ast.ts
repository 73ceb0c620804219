/** Cypher abstract syntax tree. Every node carries `start`/`end` offsets into the query text. */

export interface Span {
  start: number
  end: number
}

export type LiteralValue = null | boolean | bigint | number | string

export type Expr =
  | ({ kind: 'literal'; value: LiteralValue } & Span)
  | ({ kind: 'param'; name: string } & Span)
  | ({ kind: 'var'; name: string } & Span)
  | ({ kind: 'prop'; target: Expr; key: string } & Span)
  | ({ kind: 'index'; target: Expr; index: Expr } & Span)
  | ({ kind: 'slice'; target: Expr; from: Expr | undefined; to: Expr | undefined } & Span)
  | ({ kind: 'list'; items: Expr[] } & Span)
  | ({ kind: 'map'; entries: [string, Expr][] } & Span)
  | ({ kind: 'mapProjection'; variable: string; items: MapProjectionItem[] } & Span)
  | ({ kind: 'unary'; op: '-' | '+' | 'NOT'; operand: Expr } & Span)
  | ({ kind: 'binary'; op: BinaryOp; left: Expr; right: Expr } & Span)
  | ({ kind: 'isNull'; operand: Expr; negated: boolean } & Span)
  | ({ kind: 'hasLabels'; target: Expr; labels: string[] } & Span)
  | ({ kind: 'call'; name: string; args: Expr[]; distinct: boolean; star: boolean } & Span)
  | ({ kind: 'case'; subject: Expr | undefined; whens: [Expr, Expr][]; otherwise: Expr | undefined } & Span)
  | ({
      kind: 'listComp'
      variable: string
      source: Expr
      where: Expr | undefined
      project: Expr | undefined
    } & Span)
  | ({
      kind: 'quantifier'
      quantifier: 'all' | 'any' | 'none' | 'single'
      variable: string
      source: Expr
      where: Expr
    } & Span)
  | ({ kind: 'reduce'; accumulator: string; init: Expr; variable: string; source: Expr; expr: Expr } & Span)
  | ({ kind: 'patternExists'; pattern: PatternPart } & Span)
  | ({ kind: 'patternComp'; pattern: PatternPart; where: Expr | undefined; project: Expr } & Span)
  /** `EXISTS { … }`, `COUNT { … }`, `COLLECT { … }`: a query run per row with the outer variables visible. */
  | ({ kind: 'subquery'; mode: 'exists' | 'count' | 'collect'; query: Query } & Span)
  /** `x IS [NOT] :: TYPE` */
  | ({ kind: 'typePredicate'; operand: Expr; type: string; negated: boolean } & Span)
  /** `n:A|B`, `n:!A`, `n:%`: a label expression beyond a plain conjunction of labels. */
  | ({ kind: 'labelExpr'; target: Expr; expr: LabelExpr } & Span)

/** Label expressions (Neo4j 5): `A|B`, `A&B`, `!A`, `%` (any label), parentheses. */
export type LabelExpr =
  | { kind: 'label'; name: string }
  | { kind: 'any' }
  | { kind: 'not'; operand: LabelExpr }
  | { kind: 'and' | 'or'; left: LabelExpr; right: LabelExpr }

export type MapProjectionItem =
  | { kind: 'property'; key: string }
  | { kind: 'entry'; key: string; value: Expr }
  | { kind: 'variable'; name: string }
  | { kind: 'all' }

export type BinaryOp =
  | '+'
  | '||'
  | '-'
  | '*'
  | '/'
  | '%'
  | '^'
  | 'AND'
  | 'OR'
  | 'XOR'
  | '='
  | '<>'
  | '<'
  | '>'
  | '<='
  | '>='
  | 'IN'
  | 'STARTS WITH'
  | 'ENDS WITH'
  | 'CONTAINS'
  | '=~'

export interface NodePattern extends Span {
  kind: 'node'
  variable: string | undefined
  labels: string[]
  /** Set when the labels are more than a conjunction (`:A|B`, `:!A`, `:%`); `labels` is then empty. */
  labelExpr?: LabelExpr | undefined
  props: Expr | undefined
  /** Inline `WHERE` of the node pattern: `(n:L WHERE n.x > 1)`. */
  where?: Expr | undefined
  /** `(n:$(expr))`: labels computed per row (a string or a list of strings each). */
  dynamicLabels?: Expr[] | undefined
}

export type Direction = 'out' | 'in' | 'both'

/** The property SET or REMOVE writes: `n.key`, or `n[expr]` with a key computed per row (a string). */
export type PropertyTarget = Expr & { kind: 'prop' | 'index' }

export interface RelPattern extends Span {
  kind: 'rel'
  variable: string | undefined
  types: string[]
  direction: Direction
  props: Expr | undefined
  /** Present for `*`, `*2`, `*1..3`, `*..5`, `*2..`; bounds may be absent. */
  varLength: { min: number | undefined; max: number | undefined } | undefined
  /** Set when the type is negated or a wildcard (`[:!R]`, `[:%]`); `types` is then empty. */
  typeExpr?: LabelExpr | undefined
  /** Inline `WHERE` of the relationship pattern: `-[r WHERE r.w > 1]->`. */
  where?: Expr | undefined
  /** A quantified group `((a:A)-[:R]->(b:B)){1,3}`: the inner nodes each hop starts and ends on. */
  hopNodes?: [NodePattern, NodePattern] | undefined
  /**
   * The predicates every hop of a quantified relationship or group must pass, its variables bound to that hop's
   * nodes and relationship (the group's WHERE, its inner nodes' and relationship's inline WHERE).
   */
  hopWhere?: Expr | undefined
  /**
   * A quantified group of more than one hop `((a)-[:R]->(b)-[:S]->(c)){1,3}`: its chain, repeated with each
   * repetition's last node the next one's first. The relationship stands for the whole repeated walk (its
   * variable, anonymous, holds every relationship met); the chain's variables are group variables.
   */
  group?: { nodes: NodePattern[]; rels: RelPattern[] } | undefined
}

export interface PatternPart extends Span {
  /** Path variable of `p = (...)`. */
  variable: string | undefined
  /** nodes.length === rels.length + 1; rels[i] joins nodes[i] and nodes[i+1]. */
  nodes: NodePattern[]
  rels: RelPattern[]
  /** A parenthesised path pattern's WHERE `((a)--+(b) WHERE …)`: a condition on each path it matches. */
  where?: Expr | undefined
  /** `shortestPath(…)`, `allShortestPaths(…)`, `SHORTEST k`, `ALL SHORTEST`, `ANY [k]`. */
  shortest?: { all: boolean; k: number; groups?: true } | undefined
}

export interface ProjectionItem extends Span {
  expr: Expr
  alias: string | undefined
  /** The item's source text: the column name when there is no alias. */
  text: string
}

export interface SortItem {
  expr: Expr
  descending: boolean
}

export interface Projection {
  distinct: boolean
  star: boolean
  items: ProjectionItem[]
  orderBy: SortItem[]
  skip: Expr | undefined
  limit: Expr | undefined
}

export type SetItem =
  | ({ kind: 'setProperty'; target: PropertyTarget; value: Expr } & Span)
  | ({ kind: 'setAll'; variable: string; value: Expr; merge: boolean } & Span)
  | ({ kind: 'setLabels'; variable: string; labels: string[]; dynamic?: Expr[] } & Span)

export type RemoveItem =
  | ({ kind: 'removeProperty'; target: PropertyTarget } & Span)
  | ({ kind: 'removeLabels'; variable: string; labels: string[]; dynamic?: Expr[] } & Span)

export type Clause =
  | ({ kind: 'match'; optional: boolean; pattern: PatternPart[]; where: Expr | undefined } & Span)
  | ({ kind: 'unwind'; expr: Expr; variable: string } & Span)
  /** `LOAD CSV [WITH HEADERS] FROM url AS variable [FIELDTERMINATOR 'c']`. */
  | ({
      kind: 'loadCsv'
      headers: boolean
      url: Expr
      variable: string
      terminator: string | undefined
    } & Span)
  | ({ kind: 'with'; projection: Projection; where: Expr | undefined } & Span)
  | ({ kind: 'return'; projection: Projection } & Span)
  | ({ kind: 'create'; pattern: PatternPart[] } & Span)
  | ({ kind: 'merge'; part: PatternPart; onCreate: SetItem[]; onMatch: SetItem[] } & Span)
  | ({ kind: 'set'; items: SetItem[] } & Span)
  | ({ kind: 'remove'; items: RemoveItem[] } & Span)
  | ({ kind: 'delete'; detach: boolean; exprs: Expr[] } & Span)
  | ({
      kind: 'call'
      procedure: string
      /** Undefined for `CALL name` without parentheses: the arguments come from same-named parameters. */
      args: Expr[] | undefined
      /** Undefined without YIELD; '*' for `YIELD *`. */
      yields: YieldItem[] | '*' | undefined
      where: Expr | undefined
      /** `OPTIONAL CALL`: a row the procedure yields nothing for passes on with nulls. */
      optional?: boolean
    } & Span)
  | ({
      kind: 'subqueryCall'
      query: Query
      /** `CALL (a, b) { … }`: the imported variables; '*' for `CALL (*)`; undefined for the `WITH` form. */
      scope: string[] | '*' | undefined
      optional: boolean
      /** `IN TRANSACTIONS [OF n ROWS]`. */
      batch: Expr | 'default' | undefined
      /** `ON ERROR CONTINUE|BREAK|FAIL` of `IN TRANSACTIONS` (FAIL when absent). */
      onError?: 'continue' | 'break' | 'fail'
      /** `REPORT STATUS AS s`: the variable each row's inner-transaction status is bound to. */
      reportStatus?: string
    } & Span)
  | ({ kind: 'foreach'; variable: string; list: Expr; body: Clause[] } & Span)
  /** `FINISH`: the query ends without a result (its side effects still happen). */
  | ({ kind: 'finish' } & Span)
  | ({ kind: 'schema'; command: SchemaCommand } & Span)

/** `CREATE … INDEX`, `CREATE CONSTRAINT`, `DROP INDEX|CONSTRAINT`: a schema command (a query of its own). */
export type SchemaCommand =
  | {
      action: 'create'
      what: 'index' | 'constraint'
      name: string | undefined
      ifNotExists: boolean
      /** RANGE, TEXT, POINT, LOOKUP, FULLTEXT, VECTOR; UNIQUENESS, NODE_KEY, NODE_PROPERTY_EXISTENCE, NODE_PROPERTY_TYPE. */
      type: string
      entityType: 'NODE' | 'RELATIONSHIP'
      labelsOrTypes: string[]
      properties: string[]
      /** `IS :: TYPE` of a property type constraint. */
      propertyType?: string
      options: Expr | undefined
    }
  | { action: 'drop'; what: 'index' | 'constraint'; name: string; ifExists: boolean }

export interface YieldItem {
  name: string
  alias: string | undefined
}

export interface SingleQuery extends Span {
  clauses: Clause[]
}

export interface Query {
  parts: SingleQuery[]
  /** unionAll[i] joins parts[i] and parts[i+1]. */
  unionAll: boolean[]
  /** `EXPLAIN` / `PROFILE` prefix. */
  explain?: 'explain' | 'profile' | undefined
  /** `USE name` prefix: the workspace the query runs in. */
  use?: string | undefined
}

export const UPDATING_CLAUSES: ReadonlySet<Clause['kind']> = new Set([
  'create',
  'merge',
  'set',
  'remove',
  'delete',
])

/** True when the parsed query can change the graph: the classification `auto` mode uses. Procedure calls
 * are classified by the planner, which knows each procedure's mode. */
export function isWriteQuery(query: Query): boolean {
  return query.parts.some((part) => part.clauses.some(clauseWrites))
}

function clauseWrites(clause: Clause): boolean {
  if (UPDATING_CLAUSES.has(clause.kind)) return true
  if (clause.kind === 'foreach') return clause.body.some(clauseWrites)
  if (clause.kind === 'subqueryCall') return isWriteQuery(clause.query)
  return false
}
