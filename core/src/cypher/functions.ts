import { runtimeError, typeError } from './errors.js'
import type { ExecContext } from './executor/context.js'
import { checkListSize } from './executor/context.js'
import { deletedAccess, formatFloat } from './operators.js'
import { formatPoint, isPoint } from './spatial/point.js'
import { formatTemporal, isTemporal, TEMPORAL_FUNCTIONS } from './temporal/index.js'
import { valueType } from './value-type.js'
import {
  type CypherMap,
  checkInt,
  INT64_MAX,
  INT64_MIN,
  isNumber,
  NodeValue,
  PathValue,
  RelValue,
  typeName,
  type Value,
} from './values.js'

export interface FunctionDef {
  min: number
  max: number
  fn(args: Value[], ctx: ExecContext): Value
}

const argError = (name: string, value: Value): Error =>
  typeError(`${name}() does not accept an argument of type ${typeName(value)}`)

function str(name: string, value: Value): string {
  if (typeof value !== 'string') throw argError(name, value)
  return value
}

function int(name: string, value: Value): bigint {
  if (typeof value !== 'bigint') throw argError(name, value)
  return value
}

function num(name: string, value: Value): number {
  if (!isNumber(value)) throw argError(name, value)
  return Number(value)
}

/** Wraps a function so a null first argument gives null (most scalar functions). */
function nullable(min: number, max: number, fn: (args: Value[], ctx: ExecContext) => Value): FunctionDef {
  return { min, max, fn: (args, ctx) => (args[0] === null ? null : fn(args, ctx)) }
}

const math = (name: string, op: (x: number) => number): FunctionDef =>
  nullable(1, 1, ([x]) => op(num(name, x as Value)))

function nodeRecord(value: Value, name: string, ctx: ExecContext) {
  if (!(value instanceof NodeValue)) throw argError(name, value)
  const node = ctx.graph.node(value.id)
  if (node === undefined) deletedAccess(ctx, value)
  return node
}

function toInteger(value: Value): Value {
  if (value === null || typeof value === 'bigint') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null
    const truncated = BigInt(Math.trunc(value))
    return truncated > INT64_MAX || truncated < INT64_MIN ? null : truncated
  }
  if (typeof value === 'boolean') return value ? 1n : 0n
  if (typeof value === 'string') {
    // A plain decimal of up to 15 digits (ids in a CSV file) is exact as a float: no trim, pattern or parse.
    if (value.length > 0 && value.length < 16 && plainDigits(value)) return BigInt(Number(value))
    const text = value.trim()
    if (/^[+-]?\d+$/.test(text)) {
      const parsed = BigInt(text)
      return parsed > INT64_MAX || parsed < INT64_MIN ? null : parsed
    }
    const float = Number(text)
    return text !== '' && Number.isFinite(float) ? toInteger(float) : null
  }
  throw argError('toInteger', value)
}

function plainDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

function toFloat(value: Value): Value {
  if (value === null || typeof value === 'number') return value
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'string') {
    const text = value.trim()
    if (text === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(NaN|Infinity)$/.test(text))
      return null
    return Number(text)
  }
  throw argError('toFloat', value)
}

export function toStringValue(value: Value): Value {
  if (value === null) return null
  if (typeof value === 'string') return value
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number') return formatFloat(value)
  if (typeof value === 'boolean') return String(value)
  if (isTemporal(value)) return formatTemporal(value)
  if (isPoint(value)) return formatPoint(value)
  throw argError('toString', value)
}

function toBoolean(value: Value): Value {
  if (value === null || typeof value === 'boolean') return value
  if (typeof value === 'string') {
    // A plain decimal of up to 15 digits (ids in a CSV file) is exact as a float: no trim, pattern or parse.
    if (value.length > 0 && value.length < 16 && plainDigits(value)) return BigInt(Number(value))
    const text = value.trim().toLowerCase()
    return text === 'true' ? true : text === 'false' ? false : null
  }
  if (typeof value === 'bigint') return value !== 0n
  throw argError('toBoolean', value)
}

function range(args: Value[], ctx: ExecContext): Value {
  const [a, b, c] = args
  for (const v of args)
    if (typeof v !== 'bigint')
      throw runtimeError('INVALID_ARGUMENT_TYPE', `range() expects integers, got ${typeName(v as Value)}`)
  const start = a as bigint
  const end = b as bigint
  const step = c === undefined ? 1n : (c as bigint)
  if (step === 0n) throw runtimeError('NUMBER_OUT_OF_RANGE', 'range() step must not be zero')
  const count =
    step > 0n
      ? end >= start
        ? (end - start) / step + 1n
        : 0n
      : start >= end
        ? (start - end) / -step + 1n
        : 0n
  checkListSize(ctx, Number(count))
  const out: Value[] = []
  for (let i = 0n, v = start; i < count; i++, v += step) out.push(v)
  return out
}

function substring(args: Value[]): Value {
  const text = str('substring', args[0] as Value)
  const start = Number(int('substring', args[1] as Value))
  if (start < 0) throw runtimeError('NEGATIVE_INTEGER_ARGUMENT', 'substring() start must not be negative')
  if (args.length > 2) {
    const length = Number(int('substring', args[2] as Value))
    if (length < 0) throw runtimeError('NEGATIVE_INTEGER_ARGUMENT', 'substring() length must not be negative')
    return text.substring(start, start + length)
  }
  return text.substring(start)
}

function keysOf(value: Value, ctx: ExecContext): Value {
  if (value instanceof Map) return [...value.keys()]
  if (value instanceof NodeValue) {
    const node = nodeRecord(value, 'keys', ctx)
    return node ? [...node.props.keys()].map((k) => ctx.graph.names.name(k)) : null
  }
  if (value instanceof RelValue) {
    const props = ctx.graph.relProps(value.id)
    if (ctx.graph.relType(value.id) < 0) deletedAccess(ctx, value)
    return props ? [...props.keys()].map((k) => ctx.graph.names.name(k)) : []
  }
  throw argError('keys', value)
}

export function propertiesOf(value: Value, ctx: ExecContext): Value {
  if (value instanceof Map) return value
  const out: CypherMap = new Map()
  if (value instanceof NodeValue) {
    const node = nodeRecord(value, 'properties', ctx)
    if (node) for (const [k, v] of node.props) out.set(ctx.graph.names.name(k), v)
    return out
  }
  if (value instanceof RelValue) {
    if (ctx.graph.relType(value.id) < 0) deletedAccess(ctx, value)
    const props = ctx.graph.relProps(value.id)
    if (props) for (const [k, v] of props) out.set(ctx.graph.names.name(k), v)
    return out
  }
  throw argError('properties', value)
}

function sizeOf(value: Value): Value {
  if (typeof value === 'string') return BigInt([...value].length)
  if (Array.isArray(value)) return BigInt(value.length)
  if (value instanceof Map) return BigInt(value.size)
  throw argError('size', value)
}

function trimWith(name: string, which: 'both' | 'start' | 'end'): FunctionDef {
  return nullable(1, 1, ([v]) => {
    const s = str(name, v as Value)
    return which === 'both' ? s.trim() : which === 'start' ? s.trimStart() : s.trimEnd()
  })
}

function roundHalfUp(x: number): number {
  // Java Math.round: half rounds toward positive infinity.
  return Math.floor(x + 0.5)
}

export const FUNCTIONS: Record<string, FunctionDef> = {
  id: nullable(1, 1, ([v]) => {
    if (v instanceof NodeValue || v instanceof RelValue) return BigInt(v.id)
    throw argError('id', v as Value)
  }),
  elementid: nullable(1, 1, ([v]) => {
    if (v instanceof NodeValue) return `node--${v.id}`
    if (v instanceof RelValue) return `relationship--${v.id}`
    throw argError('elementId', v as Value)
  }),
  labels: nullable(1, 1, ([v], ctx) => {
    const node = nodeRecord(v as Value, 'labels', ctx)
    return node ? node.labels.map((l) => ctx.graph.names.name(l)) : null
  }),
  type: nullable(1, 1, ([v], ctx) => {
    if (!(v instanceof RelValue)) throw argError('type', v as Value)
    let type = ctx.graph.relType(v.id)
    if (type < 0) type = ctx.tx?.deletedRelType(v.id) ?? -1
    if (type < 0) return deletedAccess(ctx, v)
    return ctx.graph.names.name(type)
  }),
  properties: nullable(1, 1, ([v], ctx) => propertiesOf(v as Value, ctx)),
  keys: nullable(1, 1, ([v], ctx) => keysOf(v as Value, ctx)),
  coalesce: {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    fn: (args) => args.find((v) => v !== null) ?? null,
  },
  size: nullable(1, 1, ([v]) => sizeOf(v as Value)),
  length: nullable(1, 1, ([v]) => {
    if (v instanceof PathValue) return BigInt(v.rels.length)
    if (typeof v === 'string') return BigInt([...v].length)
    if (Array.isArray(v)) return BigInt(v.length)
    throw argError('length', v as Value)
  }),
  head: nullable(1, 1, ([v]) => {
    if (!Array.isArray(v)) throw argError('head', v as Value)
    return v[0] ?? null
  }),
  last: nullable(1, 1, ([v]) => {
    if (!Array.isArray(v)) throw argError('last', v as Value)
    return v[v.length - 1] ?? null
  }),
  tail: nullable(1, 1, ([v]) => {
    if (!Array.isArray(v)) throw argError('tail', v as Value)
    return v.slice(1)
  }),
  range: { min: 2, max: 3, fn: range },
  tostring: nullable(1, 1, ([v]) => toStringValue(v as Value)),
  tostringornull: nullable(1, 1, ([v]) => {
    try {
      return toStringValue(v as Value)
    } catch {
      return null
    }
  }),
  tointeger: nullable(1, 1, ([v]) => toInteger(v as Value)),
  tointegerornull: nullable(1, 1, ([v]) => {
    try {
      return toInteger(v as Value)
    } catch {
      return null
    }
  }),
  tofloat: nullable(1, 1, ([v]) => toFloat(v as Value)),
  tofloatornull: nullable(1, 1, ([v]) => {
    try {
      return toFloat(v as Value)
    } catch {
      return null
    }
  }),
  toboolean: nullable(1, 1, ([v]) => toBoolean(v as Value)),
  tobooleanornull: nullable(1, 1, ([v]) => {
    try {
      return toBoolean(v as Value)
    } catch {
      return null
    }
  }),
  tolower: nullable(1, 1, ([v]) => str('toLower', v as Value).toLowerCase()),
  toupper: nullable(1, 1, ([v]) => str('toUpper', v as Value).toUpperCase()),
  lower: nullable(1, 1, ([v]) => str('lower', v as Value).toLowerCase()),
  upper: nullable(1, 1, ([v]) => str('upper', v as Value).toUpperCase()),
  trim: trimWith('trim', 'both'),
  ltrim: trimWith('ltrim', 'start'),
  rtrim: trimWith('rtrim', 'end'),
  substring: { min: 2, max: 3, fn: (args) => (args[0] === null ? null : substring(args)) },
  replace: {
    min: 3,
    max: 3,
    fn: ([s, from, to]) =>
      s === null || from === null || to === null
        ? null
        : str('replace', s as Value).replaceAll(str('replace', from as Value), str('replace', to as Value)),
  },
  split: {
    min: 2,
    max: 2,
    fn: ([s, sep]) =>
      s === null || sep === null ? null : str('split', s as Value).split(str('split', sep as Value)),
  },
  reverse: nullable(1, 1, ([v]) => {
    if (typeof v === 'string') return [...v].reverse().join('')
    if (Array.isArray(v)) return v.slice().reverse()
    throw argError('reverse', v as Value)
  }),
  left: {
    min: 2,
    max: 2,
    fn: ([s, n]) => {
      if (s === null) return null
      if (n === null) throw argError('left', n as Value)
      const count = int('left', n as Value)
      if (count < 0n) throw runtimeError('NEGATIVE_INTEGER_ARGUMENT', 'left() length must not be negative')
      return str('left', s as Value).slice(0, Number(count))
    },
  },
  right: {
    min: 2,
    max: 2,
    fn: ([s, n]) => {
      if (s === null) return null
      if (n === null) throw argError('right', n as Value)
      const count = int('right', n as Value)
      if (count < 0n) throw runtimeError('NEGATIVE_INTEGER_ARGUMENT', 'right() length must not be negative')
      const text = str('right', s as Value)
      return count === 0n ? '' : text.slice(-Number(count))
    },
  },
  abs: nullable(1, 1, ([v]) => {
    if (typeof v === 'bigint') return checkInt(v < 0n ? -v : v)
    return Math.abs(num('abs', v as Value))
  }),
  ceil: math('ceil', Math.ceil),
  floor: math('floor', Math.floor),
  round: nullable(1, 1, ([v]) => roundHalfUp(num('round', v as Value))),
  sign: nullable(1, 1, ([v]) => {
    if (typeof v === 'bigint') return v > 0n ? 1n : v < 0n ? -1n : 0n
    return BigInt(Math.sign(num('sign', v as Value)))
  }),
  sqrt: math('sqrt', Math.sqrt),
  exp: math('exp', Math.exp),
  log: math('log', Math.log),
  log10: math('log10', Math.log10),
  sin: math('sin', Math.sin),
  cos: math('cos', Math.cos),
  tan: math('tan', Math.tan),
  asin: math('asin', Math.asin),
  acos: math('acos', Math.acos),
  atan: math('atan', Math.atan),
  cot: math('cot', (x) => 1 / Math.tan(x)),
  degrees: math('degrees', (x) => (x * 180) / Math.PI),
  radians: math('radians', (x) => (x * Math.PI) / 180),
  atan2: {
    min: 2,
    max: 2,
    fn: ([y, x]) =>
      y === null || x === null ? null : Math.atan2(num('atan2', y as Value), num('atan2', x as Value)),
  },
  pi: { min: 0, max: 0, fn: () => Math.PI },
  e: { min: 0, max: 0, fn: () => Math.E },
  rand: { min: 0, max: 0, fn: () => Math.random() },
  timestamp: { min: 0, max: 0, fn: (_args, ctx) => BigInt(ctx.startedAt) },
  exists: { min: 1, max: 1, fn: ([v]) => v !== null },
  nodes: nullable(1, 1, ([v]) => {
    if (!(v instanceof PathValue)) throw argError('nodes', v as Value)
    return v.nodes.map((id) => new NodeValue(id))
  }),
  relationships: nullable(1, 1, ([v]) => {
    if (!(v instanceof PathValue)) throw argError('relationships', v as Value)
    return v.rels.map((id) => new RelValue(id))
  }),
  startnode: nullable(1, 1, ([v], ctx) => {
    if (!(v instanceof RelValue)) throw argError('startNode', v as Value)
    const start = ctx.graph.relStart(v.id)
    return start < 0 ? deletedAccess(ctx, v) : new NodeValue(start)
  }),
  endnode: nullable(1, 1, ([v], ctx) => {
    if (!(v instanceof RelValue)) throw argError('endNode', v as Value)
    const end = ctx.graph.relEnd(v.id)
    return end < 0 ? deletedAccess(ctx, v) : new NodeValue(end)
  }),
  isempty: nullable(1, 1, ([v]) => {
    if (typeof v === 'string') return v.length === 0
    if (Array.isArray(v)) return v.length === 0
    if (v instanceof Map) return v.size === 0
    throw argError('isEmpty', v as Value)
  }),
  valuetype: { min: 1, max: 1, fn: ([v]) => valueType(v as Value) },
  // date(), datetime.truncate(), duration.between(), …: registered from the temporal module.
  ...(TEMPORAL_FUNCTIONS as Record<string, FunctionDef>),
}
