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

export type MapProjectionItem =
  | { kind: 'property'; key: string }
  | { kind: 'entry'; key: string; value: Expr }
  | { kind: 'variable'; name: string }
  | { kind: 'all' }

export type BinaryOp =
  | '+'
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
  props: Expr | undefined
}

export type Direction = 'out' | 'in' | 'both'

export interface RelPattern extends Span {
  kind: 'rel'
  variable: string | undefined
  types: string[]
  direction: Direction
  props: Expr | undefined
  /** Present for `*`, `*2`, `*1..3`, `*..5`, `*2..`; bounds may be absent. */
  varLength: { min: number | undefined; max: number | undefined } | undefined
}

export interface PatternPart extends Span {
  /** Path variable of `p = (...)`. */
  variable: string | undefined
  /** nodes.length === rels.length + 1; rels[i] joins nodes[i] and nodes[i+1]. */
  nodes: NodePattern[]
  rels: RelPattern[]
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
  | ({ kind: 'setProperty'; target: Expr & { kind: 'prop' }; value: Expr } & Span)
  | ({ kind: 'setAll'; variable: string; value: Expr; merge: boolean } & Span)
  | ({ kind: 'setLabels'; variable: string; labels: string[] } & Span)

export type RemoveItem =
  | ({ kind: 'removeProperty'; target: Expr & { kind: 'prop' } } & Span)
  | ({ kind: 'removeLabels'; variable: string; labels: string[] } & Span)

export type Clause =
  | ({ kind: 'match'; optional: boolean; pattern: PatternPart[]; where: Expr | undefined } & Span)
  | ({ kind: 'unwind'; expr: Expr; variable: string } & Span)
  | ({ kind: 'with'; projection: Projection; where: Expr | undefined } & Span)
  | ({ kind: 'return'; projection: Projection } & Span)
  | ({ kind: 'create'; pattern: PatternPart[] } & Span)
  | ({ kind: 'merge'; part: PatternPart; onCreate: SetItem[]; onMatch: SetItem[] } & Span)
  | ({ kind: 'set'; items: SetItem[] } & Span)
  | ({ kind: 'remove'; items: RemoveItem[] } & Span)
  | ({ kind: 'delete'; detach: boolean; exprs: Expr[] } & Span)

export interface SingleQuery extends Span {
  clauses: Clause[]
}

export interface Query {
  parts: SingleQuery[]
  /** unionAll[i] joins parts[i] and parts[i+1]. */
  unionAll: boolean[]
}

export const UPDATING_CLAUSES: ReadonlySet<Clause['kind']> = new Set([
  'create',
  'merge',
  'set',
  'remove',
  'delete',
])

/** True when the parsed query can change the graph: the classification `auto` mode uses. */
export function isWriteQuery(query: Query): boolean {
  return query.parts.some((part) => part.clauses.some((clause) => UPDATING_CLAUSES.has(clause.kind)))
}
