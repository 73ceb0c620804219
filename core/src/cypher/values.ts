import { runtimeError } from './errors.js'
import { isPoint, type PointValue, pointEquals, pointKey, pointOrder } from './spatial/point.js'
import {
  temporalCompare,
  temporalEquals,
  temporalKey,
  temporalOrder,
  temporalRank,
} from './temporal/compare.js'
import { isTemporal, type TemporalValue, temporalTypeName } from './temporal/values.js'

/**
 * Runtime values. Integers are `bigint` (exact int64; overflow is an error), floats are `number`.
 * Maps are `Map`s; nodes, relationships and paths are small classes holding ids, read through the
 * graph version the query runs against.
 */
export class NodeValue {
  constructor(readonly id: number) {}
}

export class RelValue {
  constructor(readonly id: number) {}
}

export class PathValue {
  /** nodes.length === rels.length + 1. */
  constructor(
    readonly nodes: number[],
    readonly rels: number[],
  ) {}
}

export type CypherMap = Map<string, Value>
export type Value =
  | null
  | boolean
  | bigint
  | number
  | string
  | Value[]
  | CypherMap
  | NodeValue
  | RelValue
  | PathValue
  | TemporalValue
  | PointValue

export const INT64_MAX = (1n << 63n) - 1n
export const INT64_MIN = -(1n << 63n)

export function checkInt(value: bigint): bigint {
  if (value > INT64_MAX || value < INT64_MIN) throw runtimeError('INTEGER_OVERFLOW', 'integer overflow')
  return value
}

export const isNumber = (value: Value): value is number | bigint =>
  typeof value === 'number' || typeof value === 'bigint'

export function typeName(value: Value): string {
  if (value === null) return 'NULL'
  switch (typeof value) {
    case 'boolean':
      return 'BOOLEAN'
    case 'bigint':
      return 'INTEGER'
    case 'number':
      return 'FLOAT'
    case 'string':
      return 'STRING'
  }
  if (Array.isArray(value)) return 'LIST'
  if (value instanceof Map) return 'MAP'
  if (value instanceof NodeValue) return 'NODE'
  if (value instanceof RelValue) return 'RELATIONSHIP'
  if (isTemporal(value)) return temporalTypeName(value)
  if (isPoint(value)) return 'POINT'
  return 'PATH'
}

/** Cypher `=`: true, false or null (unknown). */
export function equals(a: Value, b: Value): boolean | null {
  if (a === null || b === null) return null
  switch (typeof a) {
    case 'bigint':
    case 'number':
      // biome-ignore lint/suspicious/noDoubleEquals: bigint/number comparison is exact with ==
      return typeof b === 'bigint' || typeof b === 'number' ? a == b : false
    case 'string':
    case 'boolean':
      return a === b
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return false
    if (a.length !== b.length) return false
    let unknown = false
    for (let i = 0; i < a.length; i++) {
      const eq = equals(a[i] as Value, b[i] as Value)
      if (eq === false) return false
      if (eq === null) unknown = true
    }
    return unknown ? null : true
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false
    let unknown = false
    for (const [key, value] of a) {
      if (!b.has(key)) return false
      const eq = equals(value, b.get(key) as Value)
      if (eq === false) return false
      if (eq === null) unknown = true
    }
    return unknown ? null : true
  }
  if (a instanceof NodeValue) return b instanceof NodeValue && a.id === b.id
  if (a instanceof RelValue) return b instanceof RelValue && a.id === b.id
  if (a instanceof PathValue) {
    return (
      b instanceof PathValue &&
      a.nodes.length === b.nodes.length &&
      a.rels.every((id, i) => b.rels[i] === id) &&
      a.nodes.every((id, i) => b.nodes[i] === id)
    )
  }
  if (isTemporal(a)) return isTemporal(b) && temporalEquals(a, b)
  if (isPoint(a)) return isPoint(b) && pointEquals(a, b)
  return false
}

/**
 * Cypher `<`-style comparison: a number, or null when the values are not comparable (different
 * types, nulls, NaN involved gives false via the caller seeing NaN).
 */
export function compare(a: Value, b: Value): number | null {
  if (a === null || b === null) return null
  if (isNumber(a)) {
    if (!isNumber(b)) return null
    if (typeof a === 'number' && Number.isNaN(a)) return Number.NaN
    if (typeof b === 'number' && Number.isNaN(b)) return Number.NaN
    return a < b ? -1 : a > b ? 1 : 0
  }
  if (typeof a === 'string') return typeof b === 'string' ? (a < b ? -1 : a > b ? 1 : 0) : null
  if (typeof a === 'boolean') return typeof b === 'boolean' ? Number(a) - Number(b) : null
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return null
    const n = Math.min(a.length, b.length)
    for (let i = 0; i < n; i++) {
      const c = compare(a[i] as Value, b[i] as Value)
      if (c === null || Number.isNaN(c)) return c
      if (c !== 0) return c
    }
    return a.length - b.length
  }
  if (isTemporal(a)) return isTemporal(b) ? temporalCompare(a, b) : null
  return null
}

// Orderability ranks (ascending): MAP < NODE < RELATIONSHIP < LIST < PATH < POINT < temporal types (4.1 to 4.6:
// DATETIME < LOCAL DATETIME < DATE < TIME < LOCAL TIME < DURATION) < STRING < BOOLEAN < NUMBER < NULL.
function rank(value: Value): number {
  if (value === null) return 9
  switch (typeof value) {
    case 'bigint':
    case 'number':
      return 7
    case 'boolean':
      return 6
    case 'string':
      return 5
  }
  if (value instanceof Map) return 0
  if (value instanceof NodeValue) return 1
  if (value instanceof RelValue) return 2
  if (Array.isArray(value)) return 3
  if (isTemporal(value)) return 4.1 + temporalRank(value) / 10
  if (isPoint(value)) return 4.05
  return 4
}

/** Total order used by ORDER BY, min/max and sorting: every pair of values is ordered. */
export function orderCompare(a: Value, b: Value): number {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra - rb
  switch (ra) {
    case 7: {
      const an = typeof a === 'number' && Number.isNaN(a)
      const bn = typeof b === 'number' && Number.isNaN(b)
      if (an || bn) return an === bn ? 0 : an ? 1 : -1
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0
    }
    case 6:
      return Number(a) - Number(b)
    case 5:
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0
    case 3: {
      const la = a as Value[]
      const lb = b as Value[]
      const n = Math.min(la.length, lb.length)
      for (let i = 0; i < n; i++) {
        const c = orderCompare(la[i] as Value, lb[i] as Value)
        if (c !== 0) return c
      }
      return la.length - lb.length
    }
    case 1:
      return (a as NodeValue).id - (b as NodeValue).id
    case 2:
      return (a as RelValue).id - (b as RelValue).id
    case 4: {
      const pa = a as PathValue
      const pb = b as PathValue
      const c = orderCompare(
        pa.nodes.map((id) => new NodeValue(id)),
        pb.nodes.map((id) => new NodeValue(id)),
      )
      return c !== 0 ? c : orderCompare(pa.rels.map(relOf), pb.rels.map(relOf))
    }
    case 0: {
      const ka = [...(a as CypherMap).keys()].sort()
      const kb = [...(b as CypherMap).keys()].sort()
      const c = orderCompare(ka, kb)
      if (c !== 0) return c
      for (const key of ka) {
        const d = orderCompare((a as CypherMap).get(key) as Value, (b as CypherMap).get(key) as Value)
        if (d !== 0) return d
      }
      return 0
    }
    case 4.05:
      return pointOrder(a as PointValue, b as PointValue)
    default:
      return isTemporal(a) && isTemporal(b) ? temporalOrder(a, b) : 0
  }
}

const relOf = (id: number): RelValue => new RelValue(id)

/**
 * Equivalence key for DISTINCT and grouping: null equals null, NaN equals NaN, 1 equals 1.0, lists
 * and maps structurally. Two values are equivalent iff their keys are equal strings.
 */
export function valueKey(value: Value): string {
  if (value === null) return 'N'
  switch (typeof value) {
    case 'boolean':
      return value ? 'T' : 'F'
    case 'bigint':
      return `#${value}`
    case 'number':
      if (Number.isInteger(value) && Math.abs(value) < 2 ** 63) return `#${BigInt(value)}`
      return `#${value}`
    case 'string':
      return JSON.stringify(value)
  }
  if (Array.isArray(value)) {
    let key = '['
    for (const item of value) key += `${valueKey(item)},`
    return `${key}]`
  }
  if (value instanceof Map) {
    const keys = [...value.keys()].sort()
    let key = '{'
    for (const k of keys) key += `${JSON.stringify(k)}:${valueKey(value.get(k) as Value)},`
    return `${key}}`
  }
  if (value instanceof NodeValue) return `n${value.id}`
  if (value instanceof RelValue) return `r${value.id}`
  if (isTemporal(value)) return temporalKey(value)
  if (isPoint(value)) return pointKey(value)
  return `p${value.nodes.join('.')}/${value.rels.join('.')}`
}

/** Three-valued truth of a predicate result; anything but a boolean or null is a type error. */
export function truth(value: Value): boolean | null {
  if (value === null || typeof value === 'boolean') return value
  throw runtimeError('INVALID_ARGUMENT_TYPE', `expected a boolean but got ${typeName(value)}`)
}
