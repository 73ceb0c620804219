import { encodeTaggedValue, isTaggedValue } from '../cypher/tagged-value.js'
import type { PropertyValue } from '../graph/types.js'

export type TypedProperty =
  | { type: 'null' }
  | { type: 'bool'; value: boolean }
  | { type: 'integer'; value: number | string }
  | { type: 'float'; value: number | string }
  | { type: 'string'; value: string }
  | { type: 'string_list'; value: string[] }
  | { type: 'integer_list'; value: (number | string)[] }
  | { type: 'float_list'; value: (number | string)[] }
  | { type: 'bool_list'; value: boolean[] }
  | { type: 'json'; value: unknown }

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
/** Exact integers: a JSON number when safe, else its decimal text. */
const integer = (v: bigint) => (v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString())
const float = (v: number) => (Number.isFinite(v) ? v : String(v))

/** A property value with its type spelled out, so a client never has to guess 1 from 1.0. */
export function typedProperty(value: PropertyValue | null): TypedProperty {
  if (value === null) return { type: 'null' }
  if (typeof value === 'boolean') return { type: 'bool', value }
  if (typeof value === 'bigint') return { type: 'integer', value: integer(value) }
  if (typeof value === 'number') return { type: 'float', value: float(value) }
  if (typeof value === 'string') return { type: 'string', value }
  // Temporal values and points in their tagged JSON form, as query results carry them.
  if (isTaggedValue(value)) return { type: 'json', value: encodeTaggedValue(value) }
  const list = value as readonly unknown[]
  if (list.length > 0) {
    if (list.every((x) => typeof x === 'string')) return { type: 'string_list', value: list as string[] }
    if (list.every((x) => typeof x === 'bigint'))
      return { type: 'integer_list', value: (list as bigint[]).map(integer) }
    if (list.every((x) => typeof x === 'number'))
      return { type: 'float_list', value: (list as number[]).map(float) }
    if (list.every((x) => typeof x === 'boolean')) return { type: 'bool_list', value: list as boolean[] }
  }
  return {
    type: 'json',
    value: list.map((x) =>
      typeof x === 'bigint'
        ? integer(x)
        : typeof x === 'number'
          ? float(x)
          : isTaggedValue(x)
            ? encodeTaggedValue(x)
            : x,
    ),
  }
}
