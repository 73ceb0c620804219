import { splitUnion } from './type-predicate.js'
import { typeName, type Value } from './values.js'

/**
 * `valueType(x)`: Neo4j's normalised type of a value — `INTEGER NOT NULL`, `NULL`, `LIST<STRING NOT NULL> NOT NULL`,
 * a list's element types joined as a union in Neo4j's order of types (`LIST<STRING NOT NULL | INTEGER NOT NULL>`),
 * a null element making the others nullable (`LIST<INTEGER>`), an empty list `LIST<NOTHING>`.
 */
export function valueType(value: Value): string {
  if (value === null) return 'NULL'
  if (Array.isArray(value)) return `LIST<${elementTypes(value)}> NOT NULL`
  return `${typeName(value)} NOT NULL`
}

/** Neo4j's order of types (values-and-types: ordering of types). */
const ORDER = [
  'NOTHING',
  'NULL',
  'BOOLEAN',
  'STRING',
  'INTEGER',
  'FLOAT',
  'DATE',
  'LOCAL TIME',
  'ZONED TIME',
  'LOCAL DATETIME',
  'ZONED DATETIME',
  'DURATION',
  'POINT',
  'NODE',
  'RELATIONSHIP',
  'MAP',
  'LIST',
  'PATH',
]

function rank(type: string): number {
  const base = type.replace(/ NOT NULL$/, '').replace(/<.*$/, '')
  const at = ORDER.indexOf(base)
  return at < 0 ? ORDER.length : at
}

function elementTypes(list: Value[]): string {
  if (list.length === 0) return 'NOTHING'
  const types = new Set(list.map(valueType))
  const nullable = types.has('NULL')
  if (nullable && types.size === 1) return 'NULL'
  types.delete('NULL')
  const members = [...types].map((type) => (nullable ? type.replace(/ NOT NULL$/, '') : type))
  return [...new Set(members)].sort(compareTypes).join(' | ')
}

/** Neo4j's order: by kind; lists by their inner types; a NOT NULL variant before the nullable one. */
function compareTypes(a: string, b: string): number {
  const byRank = rank(a) - rank(b)
  if (byRank !== 0) return byRank
  const innerA = /^LIST<(.*)>( NOT NULL)?$/.exec(a)?.[1]
  const innerB = /^LIST<(.*)>( NOT NULL)?$/.exec(b)?.[1]
  if (innerA !== undefined && innerB !== undefined) {
    const byInner = compareUnions(splitUnion(innerA), splitUnion(innerB))
    if (byInner !== 0) return byInner
  }
  const [strictA, strictB] = [a.endsWith(' NOT NULL'), b.endsWith(' NOT NULL')]
  if (strictA !== strictB) return strictA ? -1 : 1
  return a < b ? -1 : a > b ? 1 : 0
}

/** Fewer members first, then by the first member that differs. */
function compareUnions(a: string[], b: string[]): number {
  if (a.length !== b.length) return a.length - b.length
  for (let i = 0; i < a.length; i++) {
    const c = compareTypes(a[i] as string, b[i] as string)
    if (c !== 0) return c
  }
  return 0
}
