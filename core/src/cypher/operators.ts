import type { Interner } from '../graph/types.js'
import { type CypherError, runtimeError, typeError } from './errors.js'
import type { ExecContext } from './executor/context.js'
import { checkListSize } from './executor/context.js'
import { isPoint, pointProperty } from './spatial/point.js'
import {
  durationNegate,
  durationScale,
  isTemporal,
  temporalAdd,
  temporalProperty,
  temporalSubtract,
} from './temporal/index.js'
import {
  type CypherMap,
  checkInt,
  compare,
  equals,
  isNumber,
  NodeValue,
  RelValue,
  typeName,
  type Value,
} from './values.js'

const badOperands = (op: string, a: Value, b: Value): CypherError =>
  typeError(`cannot apply ${op} to ${typeName(a)} and ${typeName(b)}`)

/** `a || b` (Neo4j 5.19): STRING with STRING, LIST with LIST; null when either side is. */
export function concat(a: Value, b: Value, ctx: ExecContext): Value {
  if (a === null || b === null) return null
  if (typeof a === 'string' && typeof b === 'string') return a + b
  if (Array.isArray(a) && Array.isArray(b)) {
    checkListSize(ctx, a.length + b.length)
    return a.concat(b)
  }
  throw badOperands('||', a, b)
}

export function add(a: Value, b: Value, ctx: ExecContext): Value {
  if (a === null || b === null) return null
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a + b)
  if (isNumber(a) && isNumber(b)) return Number(a) + Number(b)
  if (typeof a === 'string' && (typeof b === 'string' || isNumber(b))) return a + numberText(b)
  if (typeof b === 'string' && isNumber(a)) return numberText(a) + b
  if (Array.isArray(a)) {
    const out = Array.isArray(b) ? a.concat(b) : [...a, b]
    checkListSize(ctx, out.length)
    return out
  }
  if (Array.isArray(b)) {
    checkListSize(ctx, b.length + 1)
    return [a, ...b]
  }
  const temporal = temporalAdd(a, b)
  if (temporal !== undefined) return temporal
  throw badOperands('+', a, b)
}

function numberText(value: string | number | bigint): string {
  return typeof value === 'number' ? formatFloat(value) : String(value)
}

/** Cypher prints floats with a fractional part: 1.0, not 1. */
export function formatFloat(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return value.toFixed(1)
  if (Number.isNaN(value)) return 'NaN'
  if (value === Number.POSITIVE_INFINITY) return 'Infinity'
  if (value === Number.NEGATIVE_INFINITY) return '-Infinity'
  return String(value)
}

export function arithmetic(op: '-' | '*' | '/' | '%' | '^', a: Value, b: Value): Value {
  if (a === null || b === null) return null
  if (!isNumber(a) || !isNumber(b)) {
    const temporal =
      op === '-' ? temporalSubtract(a, b) : op === '*' || op === '/' ? durationScale(op, a, b) : undefined
    if (temporal !== undefined) return temporal
    throw badOperands(op, a, b)
  }
  if (op === '^') return Number(a) ** Number(b)
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    switch (op) {
      case '-':
        return checkInt(a - b)
      case '*':
        return checkInt(a * b)
      case '/':
        if (b === 0n) throw runtimeError('DIVISION_BY_ZERO', '/ by zero')
        return checkInt(a / b)
      case '%':
        if (b === 0n) throw runtimeError('DIVISION_BY_ZERO', '/ by zero')
        return a % b
    }
  }
  const x = Number(a)
  const y = Number(b)
  switch (op) {
    case '-':
      return x - y
    case '*':
      return x * y
    case '/':
      return x / y
    case '%':
      return x % y
  }
}

export function negate(a: Value): Value {
  if (a === null) return null
  if (typeof a === 'bigint') return checkInt(-a)
  if (typeof a === 'number') return -a
  const duration = durationNegate(a)
  if (duration !== undefined) return duration
  throw typeError(`cannot negate ${typeName(a)}`)
}

export function comparison(op: '<' | '>' | '<=' | '>=', a: Value, b: Value): boolean | null {
  const c = compare(a, b)
  if (c === null) return null
  if (Number.isNaN(c)) return false
  switch (op) {
    case '<':
      return c < 0
    case '>':
      return c > 0
    case '<=':
      return c <= 0
    case '>=':
      return c >= 0
  }
}

export function inList(item: Value, list: Value): boolean | null {
  if (list === null) return null
  if (!Array.isArray(list)) throw typeError(`IN expects a list but got ${typeName(list)}`)
  let unknown = false
  for (const element of list) {
    const eq = equals(item, element)
    if (eq === true) return true
    if (eq === null) unknown = true
  }
  return unknown ? null : false
}

export function stringPredicate(
  op: 'STARTS WITH' | 'ENDS WITH' | 'CONTAINS',
  a: Value,
  b: Value,
): boolean | null {
  if (typeof a !== 'string' || typeof b !== 'string') return null
  if (op === 'STARTS WITH') return a.startsWith(b)
  if (op === 'ENDS WITH') return a.endsWith(b)
  return a.includes(b)
}

const MAX_REGEX_LENGTH = 1000
const MAX_REGEX_INPUT = 100_000
/** A quantified group that itself contains a quantifier, like `(a+)+` or `(a|b*)*`: exponential backtracking. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[*+}](?:[^()\\]|\\.)*\)\s*(?:[*+]|\{\d*,?\d*\})/

export function regexMatch(a: Value, b: Value, ctx: ExecContext): boolean | null {
  if (a === null || b === null) return null
  if (typeof a !== 'string' || typeof b !== 'string') return null
  ctx.regexCache ??= new Map()
  let regex = ctx.regexCache.get(b)
  if (regex === undefined) {
    regex = compileRegex(b)
    ctx.regexCache.set(b, regex)
  }
  if (a.length > MAX_REGEX_INPUT) {
    throw runtimeError('REGEX_REJECTED', `regular expression input longer than ${MAX_REGEX_INPUT} characters`)
  }
  return regex.test(a)
}

/** Java-style whole-string match, guarded: length cap and no nested quantifiers. */
export function compileRegex(pattern: string): RegExp {
  if (pattern.length > MAX_REGEX_LENGTH) {
    throw runtimeError('REGEX_REJECTED', `regular expression longer than ${MAX_REGEX_LENGTH} characters`)
  }
  if (NESTED_QUANTIFIER.test(pattern)) {
    throw runtimeError(
      'REGEX_REJECTED',
      'regular expression with nested quantifiers is not allowed (catastrophic backtracking)',
    )
  }
  let flags = 'u'
  let body = pattern
  const inline = /^\(\?([imsx]+)\)/.exec(body)
  if (inline) {
    for (const flag of inline[1] as string) if (flag !== 'x' && !flags.includes(flag)) flags += flag
    body = body.slice(inline[0].length)
  }
  try {
    return new RegExp(`^(?:${body})$`, flags)
  } catch {
    throw runtimeError('INVALID_ARGUMENT_VALUE', `invalid regular expression '${pattern}'`)
  }
}

/** Interned id of a name for one graph's interner, or -1 while the name is unknown there. */
export type NameResolver = (names: Interner) => number

/**
 * A resolver that remembers its last answer: a compiled property read runs once per row, and interned ids
 * never change once given (an unknown name is looked up again, since a write may intern it later).
 */
export function cachedName(name: string): NameResolver {
  let lastNames: Interner | undefined
  let lastId = -1
  return (names) => {
    if (names === lastNames) return lastId
    const id = names.lookup(name)
    if (id >= 0) {
      lastNames = names
      lastId = id
    }
    return id
  }
}

/** `value.key` on a node, relationship or map; null for null. */
export function property(
  value: Value,
  key: string,
  ctx: ExecContext,
  resolve: NameResolver = (names) => names.lookup(key),
): Value {
  if (value === null) return null
  if (value instanceof NodeValue) {
    const node = ctx.graph.node(value.id)
    if (node === undefined) return deletedAccess(ctx, value)
    const id = resolve(ctx.graph.names)
    return id < 0 ? null : (node.props.get(id) ?? null)
  }
  if (value instanceof RelValue) {
    if (ctx.graph.relType(value.id) < 0) return deletedAccess(ctx, value)
    const id = resolve(ctx.graph.names)
    if (id < 0) return null
    const graph = ctx.graph
    return (graph.relProperty ? graph.relProperty(value.id, id) : graph.relProps(value.id)?.get(id)) ?? null
  }
  if (value instanceof Map) return (value as CypherMap).get(key) ?? null
  if (isTemporal(value)) return temporalProperty(value, key)
  if (isPoint(value)) return pointProperty(value, key)
  throw typeError(`cannot read property '${key}' of ${typeName(value)}`)
}

export function deletedAccess(ctx: ExecContext, value: NodeValue | RelValue): null {
  const deleted =
    value instanceof NodeValue ? ctx.tx?.isDeletedNode(value.id) : ctx.tx?.isDeletedRel(value.id)
  if (deleted) {
    throw runtimeError(
      'DELETED_ENTITY_ACCESS',
      `the ${value instanceof NodeValue ? 'node' : 'relationship'} was deleted by this query`,
    )
  }
  return null
}

export function indexValue(target: Value, index: Value, ctx: ExecContext): Value {
  if (target === null || index === null) return null
  if (Array.isArray(target)) {
    if (typeof index !== 'bigint') throw typeError(`list index must be an integer, got ${typeName(index)}`)
    const i = index < 0n ? BigInt(target.length) + index : index
    return i >= 0n && i < BigInt(target.length) ? (target[Number(i)] as Value) : null
  }
  if (target instanceof Map || target instanceof NodeValue || target instanceof RelValue) {
    if (typeof index !== 'string') throw typeError(`map key must be a string, got ${typeName(index)}`)
    return property(target, index, ctx)
  }
  throw typeError(`cannot index into ${typeName(target)}`)
}

export function sliceValue(target: Value, from: Value | undefined, to: Value | undefined): Value {
  if (target === null) return null
  if (!Array.isArray(target)) throw typeError(`cannot slice ${typeName(target)}`)
  if (from === null || to === null) return null
  if ((from !== undefined && typeof from !== 'bigint') || (to !== undefined && typeof to !== 'bigint')) {
    throw typeError('list slice bounds must be integers')
  }
  const n = target.length
  const norm = (v: bigint | undefined, fallback: number): number => {
    if (v === undefined) return fallback
    const i = Number(v < 0n ? BigInt(n) + v : v)
    return Math.max(0, Math.min(n, i))
  }
  const start = norm(from as bigint | undefined, 0)
  const end = norm(to as bigint | undefined, n)
  return end > start ? target.slice(start, end) : []
}
