import { runtimeError, typeError } from './errors.js'
import type { ExecContext } from './executor/context.js'
import { checkListSize } from './executor/context.js'
import type { FunctionDef } from './functions.js'
import { propertiesOf } from './functions.js'
import { comparison } from './operators.js'
import { bindParams } from './params.js'
import { nodeElementId, relElementId } from './result.js'
import {
  type CypherMap,
  equals,
  isNumber,
  NodeValue,
  PathValue,
  RelValue,
  typeName,
  type Value,
  valueKey,
} from './values.js'

// The APOC functions agents and graph libraries commonly call: JSON conversion, collections, text, maps.

const argError = (name: string, value: Value): Error =>
  typeError(`${name}() does not accept an argument of type ${typeName(value)}`)

function list(name: string, value: Value): Value[] {
  if (!Array.isArray(value)) throw argError(name, value)
  return value
}

function str(name: string, value: Value): string {
  if (typeof value !== 'string') throw argError(name, value)
  return value
}

function cmap(name: string, value: Value): CypherMap {
  if (!(value instanceof Map)) throw argError(name, value)
  return value
}

/** A function whose null first argument gives null. */
const fn1 = (min: number, max: number, body: (args: Value[], ctx: ExecContext) => Value): FunctionDef => ({
  min,
  max,
  fn: (args, ctx) => (args[0] === null ? null : body(args, ctx)),
})

/** JSON text of a value, nodes and relationships as APOC writes them. */
function toJsonValue(value: Value, ctx: ExecContext): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value)
  if (Array.isArray(value)) return value.map((item) => toJsonValue(item, ctx))
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, toJsonValue(v, ctx)]))
  if (value instanceof NodeValue) {
    const node = ctx.graph.node(value.id)
    return {
      id: nodeElementId(value.id),
      type: 'node',
      labels: node ? node.labels.map((id) => ctx.graph.names.name(id)) : [],
      properties: toJsonValue(propertiesOf(value, ctx), ctx),
    }
  }
  if (value instanceof RelValue) {
    return {
      id: relElementId(value.id),
      type: 'relationship',
      label: ctx.graph.names.name(ctx.graph.relType(value.id)),
      start: { id: nodeElementId(ctx.graph.relStart(value.id)) },
      end: { id: nodeElementId(ctx.graph.relEnd(value.id)) },
      properties: toJsonValue(propertiesOf(value, ctx), ctx),
    }
  }
  if (value instanceof PathValue) {
    return value.nodes.map((id) => toJsonValue(new NodeValue(id), ctx))
  }
  return null
}

function fromJson(name: string, text: Value, ctx: ExecContext, want: 'map' | 'list'): Value {
  let parsed: unknown
  try {
    parsed = JSON.parse(str(name, text))
  } catch (error) {
    throw runtimeError('INVALID_ARGUMENT_VALUE', `${name}(): not valid JSON: ${(error as Error).message}`)
  }
  if (parsed === null) return null
  const isList = Array.isArray(parsed)
  if ((want === 'list') !== isList || (want === 'map' && typeof parsed !== 'object'))
    throw runtimeError('INVALID_ARGUMENT_VALUE', `${name}(): the JSON is not a ${want}`)
  return bindParams({ value: parsed }, ctx.budgets.maxListSize).get('value') ?? null
}

function numbers(name: string, values: Value[]): number[] {
  return values
    .filter((v) => v !== null)
    .map((v) => {
      if (!isNumber(v)) throw argError(name, v)
      return Number(v)
    })
}

function extreme(_name: string, values: Value[], sign: 1 | -1): Value {
  let best: Value = null
  for (const v of values) {
    if (v === null) continue
    if (best === null || comparison(sign > 0 ? '>' : '<', v, best) === true) best = v
  }
  return best
}

function distinct(values: Value[]): Value[] {
  const seen = new Set<string>()
  const out: Value[] = []
  for (const v of values) {
    const key = valueKey(v)
    if (seen.has(key)) continue
    seen.add(key)
    out.push(v)
  }
  return out
}

function sortValues(values: Value[]): Value[] {
  return values
    .slice()
    .sort((a, b) => (comparison('<', a, b) === true ? -1 : comparison('>', a, b) === true ? 1 : 0))
}

function levenshtein(a: string, b: string): number {
  const x = [...a]
  const y = [...b]
  let prev = Array.from({ length: y.length + 1 }, (_, i) => i)
  for (let i = 1; i <= x.length; i++) {
    const cur = [i]
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(
        (prev[j] as number) + 1,
        (cur[j - 1] as number) + 1,
        (prev[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1),
      )
    }
    prev = cur
  }
  return prev[y.length] as number
}

const words = (s: string): string[] =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')

const capital = (w: string) => (w === '' ? w : (w[0] as string).toUpperCase() + w.slice(1).toLowerCase())

function pad(name: string, args: Value[], left: boolean): Value {
  const [s, length, fill] = args
  const text = str(name, s as Value)
  if (typeof length !== 'bigint') throw argError(name, length ?? null)
  const filler = fill === undefined || fill === null ? ' ' : str(name, fill)
  if (filler === '') return text
  const missing = Number(length) - [...text].length
  if (missing <= 0) return text
  const padding = filler.repeat(Math.ceil(missing / filler.length)).slice(0, missing)
  return left ? padding + text : text + padding
}

export const APOC_FUNCTIONS: Record<string, FunctionDef> = {
  'apoc.convert.tojson': { min: 1, max: 1, fn: ([v], ctx) => JSON.stringify(toJsonValue(v as Value, ctx)) },
  'apoc.convert.fromjsonmap': fn1(1, 2, ([text], ctx) =>
    fromJson('apoc.convert.fromJsonMap', text as Value, ctx, 'map'),
  ),
  'apoc.convert.fromjsonlist': fn1(1, 2, ([text], ctx) =>
    fromJson('apoc.convert.fromJsonList', text as Value, ctx, 'list'),
  ),
  'apoc.convert.tostring': {
    min: 1,
    max: 1,
    fn: ([v], ctx) =>
      v === null ? null : typeof v === 'string' ? v : JSON.stringify(toJsonValue(v as Value, ctx)),
  },
  'apoc.coll.sum': fn1(1, 1, ([l]) =>
    numbers('apoc.coll.sum', list('apoc.coll.sum', l as Value)).reduce((a, b) => a + b, 0),
  ),
  'apoc.coll.avg': fn1(1, 1, ([l]) => {
    const xs = numbers('apoc.coll.avg', list('apoc.coll.avg', l as Value))
    return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length
  }),
  'apoc.coll.max': fn1(1, 1, ([l]) => extreme('apoc.coll.max', list('apoc.coll.max', l as Value), 1)),
  'apoc.coll.min': fn1(1, 1, ([l]) => extreme('apoc.coll.min', list('apoc.coll.min', l as Value), -1)),
  'apoc.coll.toset': fn1(1, 1, ([l]) => distinct(list('apoc.coll.toSet', l as Value))),
  'apoc.coll.sort': fn1(1, 1, ([l]) => sortValues(list('apoc.coll.sort', l as Value))),
  'apoc.coll.contains': fn1(2, 2, ([l, v]) =>
    list('apoc.coll.contains', l as Value).some((item) => equals(item, v as Value) === true),
  ),
  'apoc.coll.indexof': fn1(2, 2, ([l, v]) =>
    BigInt(list('apoc.coll.indexOf', l as Value).findIndex((item) => equals(item, v as Value) === true)),
  ),
  'apoc.coll.flatten': fn1(1, 2, ([l, recursive], ctx) => {
    const out: Value[] = []
    const add = (items: Value[], deep: boolean) => {
      for (const item of items) {
        if (Array.isArray(item)) deep ? add(item, true) : out.push(...item)
        else out.push(item)
        checkListSize(ctx, out.length)
      }
    }
    add(list('apoc.coll.flatten', l as Value), recursive === true)
    return out
  }),
  'apoc.coll.union': fn1(2, 2, ([a, b]) =>
    distinct([...list('apoc.coll.union', a as Value), ...list('apoc.coll.union', (b ?? []) as Value)]),
  ),
  'apoc.coll.intersection': fn1(2, 2, ([a, b]) => {
    const keys = new Set(list('apoc.coll.intersection', (b ?? []) as Value).map(valueKey))
    return distinct(list('apoc.coll.intersection', a as Value).filter((v) => keys.has(valueKey(v))))
  }),
  'apoc.coll.subtract': fn1(2, 2, ([a, b]) => {
    const keys = new Set(list('apoc.coll.subtract', (b ?? []) as Value).map(valueKey))
    return distinct(list('apoc.coll.subtract', a as Value).filter((v) => !keys.has(valueKey(v))))
  }),
  'apoc.coll.zip': fn1(2, 2, ([a, b]) => {
    const x = list('apoc.coll.zip', a as Value)
    const y = b === null ? [] : list('apoc.coll.zip', b as Value)
    return x.map((item, i) => [item, y[i] ?? null])
  }),
  'apoc.coll.pairs': fn1(1, 1, ([l]) => {
    const x = list('apoc.coll.pairs', l as Value)
    return x.map((item, i) => [item, x[i + 1] ?? null])
  }),
  'apoc.coll.frequencies': fn1(1, 1, ([l]) => {
    const counts = new Map<string, { item: Value; count: bigint }>()
    for (const item of list('apoc.coll.frequencies', l as Value)) {
      const key = valueKey(item)
      const entry = counts.get(key) ?? { item, count: 0n }
      entry.count++
      counts.set(key, entry)
    }
    return [...counts.values()].map(
      ({ item, count }) =>
        new Map<string, Value>([
          ['item', item],
          ['count', count],
        ]),
    )
  }),
  'apoc.text.join': fn1(2, 2, ([l, sep]) =>
    list('apoc.text.join', l as Value)
      .filter((v) => v !== null)
      .map((v) => str('apoc.text.join', v))
      .join(str('apoc.text.join', sep as Value)),
  ),
  'apoc.text.split': fn1(2, 3, ([s, regex, limit]) => {
    const parts = str('apoc.text.split', s as Value).split(new RegExp(str('apoc.text.split', regex as Value)))
    return typeof limit === 'bigint' && limit > 0n ? parts.slice(0, Number(limit)) : parts
  }),
  'apoc.text.replace': fn1(3, 3, ([s, regex, replacement]) =>
    str('apoc.text.replace', s as Value).replace(
      new RegExp(str('apoc.text.replace', regex as Value), 'g'),
      str('apoc.text.replace', replacement as Value),
    ),
  ),
  'apoc.text.regreplace': fn1(3, 3, ([s, regex, replacement]) =>
    str('apoc.text.regreplace', s as Value).replace(
      new RegExp(str('apoc.text.regreplace', regex as Value), 'g'),
      str('apoc.text.regreplace', replacement as Value),
    ),
  ),
  'apoc.text.capitalize': fn1(1, 1, ([s]) => {
    const text = str('apoc.text.capitalize', s as Value)
    return text === '' ? text : (text[0] as string).toUpperCase() + text.slice(1)
  }),
  'apoc.text.clean': fn1(1, 1, ([s]) =>
    str('apoc.text.clean', s as Value)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]/gu, ''),
  ),
  'apoc.text.distance': fn1(2, 2, ([a, b]) =>
    BigInt(levenshtein(str('apoc.text.distance', a as Value), str('apoc.text.distance', b as Value))),
  ),
  'apoc.text.levenshteindistance': fn1(2, 2, ([a, b]) =>
    BigInt(
      levenshtein(
        str('apoc.text.levenshteinDistance', a as Value),
        str('apoc.text.levenshteinDistance', b as Value),
      ),
    ),
  ),
  'apoc.text.lpad': fn1(2, 3, (args) => pad('apoc.text.lpad', args, true)),
  'apoc.text.rpad': fn1(2, 3, (args) => pad('apoc.text.rpad', args, false)),
  'apoc.text.camelcase': fn1(1, 1, ([s]) => {
    const [first = '', ...rest] = words(str('apoc.text.camelCase', s as Value))
    return first.toLowerCase() + rest.map(capital).join('')
  }),
  'apoc.text.uppercamelcase': fn1(1, 1, ([s]) =>
    words(str('apoc.text.upperCamelCase', s as Value))
      .map(capital)
      .join(''),
  ),
  'apoc.text.snakecase': fn1(1, 1, ([s]) =>
    words(str('apoc.text.snakeCase', s as Value))
      .map((w) => w.toLowerCase())
      .join('-'),
  ),
  'apoc.map.frompairs': fn1(1, 1, ([pairs]) => {
    const out: CypherMap = new Map()
    for (const pair of list('apoc.map.fromPairs', pairs as Value)) {
      if (pair === null) continue
      const [key, value] = list('apoc.map.fromPairs', pair)
      if (key === null || key === undefined) continue
      out.set(str('apoc.map.fromPairs', key), value ?? null)
    }
    return out
  }),
  'apoc.map.fromlists': fn1(2, 2, ([keys, values]) => {
    const k = list('apoc.map.fromLists', keys as Value)
    const v = list('apoc.map.fromLists', values as Value)
    if (k.length !== v.length)
      throw runtimeError('INVALID_ARGUMENT_VALUE', 'apoc.map.fromLists(): lists of different lengths')
    return new Map(k.map((key, i) => [str('apoc.map.fromLists', key), v[i] as Value]))
  }),
  'apoc.map.merge': {
    min: 2,
    max: 2,
    fn: ([a, b]) =>
      new Map([
        ...(a === null ? [] : cmap('apoc.map.merge', a as Value)),
        ...(b === null ? [] : cmap('apoc.map.merge', b as Value)),
      ]),
  },
  'apoc.map.setkey': fn1(3, 3, ([m, key, value]) =>
    new Map(cmap('apoc.map.setKey', m as Value)).set(str('apoc.map.setKey', key as Value), value as Value),
  ),
  'apoc.map.removekey': fn1(2, 3, ([m, key]) => {
    const out = new Map(cmap('apoc.map.removeKey', m as Value))
    out.delete(str('apoc.map.removeKey', key as Value))
    return out
  }),
  'apoc.map.removekeys': fn1(2, 3, ([m, keys]) => {
    const out = new Map(cmap('apoc.map.removeKeys', m as Value))
    for (const key of list('apoc.map.removeKeys', keys as Value)) out.delete(str('apoc.map.removeKeys', key))
    return out
  }),
  'apoc.map.submap': fn1(2, 3, ([m, keys, values]) => {
    const source = cmap('apoc.map.submap', m as Value)
    const ks = list('apoc.map.submap', keys as Value)
    const defaults = values === undefined || values === null ? undefined : list('apoc.map.submap', values)
    return new Map(
      ks.map((key, i) => [
        str('apoc.map.submap', key),
        source.get(str('apoc.map.submap', key)) ?? defaults?.[i] ?? null,
      ]),
    )
  }),
  'apoc.map.values': fn1(1, 3, ([m, keys]) => {
    const source = cmap('apoc.map.values', m as Value)
    if (keys === undefined || keys === null) return [...source.values()]
    return list('apoc.map.values', keys).map((key) => source.get(str('apoc.map.values', key)) ?? null)
  }),
  'apoc.map.get': fn1(2, 4, ([m, key, fallback]) => {
    const source = cmap('apoc.map.get', m as Value)
    const k = str('apoc.map.get', key as Value)
    return source.has(k) ? (source.get(k) as Value) : (fallback ?? null)
  }),
  'apoc.map.clean': fn1(3, 3, ([m, keys, values]) => {
    const drop = new Set(list('apoc.map.clean', keys as Value).map((k) => str('apoc.map.clean', k)))
    const dropValues = list('apoc.map.clean', values as Value)
    const out: CypherMap = new Map()
    for (const [k, v] of cmap('apoc.map.clean', m as Value)) {
      if (drop.has(k) || v === null || dropValues.some((d) => equals(d, v) === true)) continue
      out.set(k, v)
    }
    return out
  }),
}
