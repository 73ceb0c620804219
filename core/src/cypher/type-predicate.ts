import { isPoint } from './spatial/point.js'
import { isTaggedValue } from './tagged-value.js'
import { isTemporal, temporalTypeName } from './temporal/values.js'
import { NodeValue, PathValue, RelValue, type Value } from './values.js'

/**
 * `x IS :: TYPE` (Neo4j 5 type predicates). Types are nullable unless `NOT NULL`: `null IS :: INTEGER` is
 * true. `A | B` is a union; `LIST<T>` checks every element; `PROPERTY VALUE` is what a property can hold.
 */
export function hasType(value: Value, type: string): boolean {
  const alternatives = splitUnion(type)
  if (alternatives.length > 1) return alternatives.some((alt) => hasType(value, alt))
  let base = type.trim()
  let nullable = true
  if (base.endsWith(' NOT NULL')) {
    nullable = false
    base = base.slice(0, -' NOT NULL'.length).trim()
  } else if (base.endsWith('!')) {
    nullable = false
    base = base.slice(0, -1).trim()
  }
  if (value === null) return nullable && base !== 'NOTHING'
  const list = /^(?:LIST|ARRAY)\s*<(.*)>$/.exec(base)
  if (list) return Array.isArray(value) && value.every((item) => hasType(item, list[1] as string))
  switch (base) {
    case 'ANY':
    case 'ANY VALUE':
      return true
    case 'NOTHING':
    case 'NULL':
      return false
    case 'BOOL':
    case 'BOOLEAN':
      return typeof value === 'boolean'
    case 'STRING':
    case 'VARCHAR':
      return typeof value === 'string'
    case 'INT':
    case 'INTEGER':
    case 'INTEGER64':
    case 'SIGNED INTEGER':
      return typeof value === 'bigint'
    case 'FLOAT':
    case 'FLOAT64':
      return typeof value === 'number'
    case 'LIST':
    case 'ARRAY':
      return Array.isArray(value)
    case 'MAP':
    case 'ANY MAP':
      return value instanceof Map
    case 'NODE':
    case 'ANY NODE':
      return value instanceof NodeValue
    case 'RELATIONSHIP':
    case 'EDGE':
    case 'ANY RELATIONSHIP':
    case 'ANY EDGE':
      return value instanceof RelValue
    case 'PATH':
      return value instanceof PathValue
    case 'POINT':
      return isPoint(value)
    case 'DATE':
    case 'LOCAL TIME':
    case 'ZONED TIME':
    case 'LOCAL DATETIME':
    case 'ZONED DATETIME':
    case 'DURATION':
      return isTemporal(value) && temporalTypeName(value) === base
    case 'PROPERTY VALUE':
    case 'ANY PROPERTY VALUE':
      return isPropertyValue(value)
    default:
      return false
  }
}

function isPropertyValue(value: Value): boolean {
  const scalar = (v: Value) =>
    typeof v === 'string' ||
    typeof v === 'bigint' ||
    typeof v === 'number' ||
    typeof v === 'boolean' ||
    isTaggedValue(v)
  return scalar(value) || (Array.isArray(value) && value.every(scalar))
}

/** Splits `A | LIST<B | C>` at its top-level bars. */
export function splitUnion(type: string): string[] {
  const out: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < type.length; i++) {
    const c = type[i]
    if (c === '<') depth++
    else if (c === '>') depth--
    else if (c === '|' && depth === 0) {
      out.push(type.slice(start, i).trim())
      start = i + 1
    }
  }
  out.push(type.slice(start).trim())
  return out
}
