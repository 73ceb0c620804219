import type { PropertyColumn } from './columns.js'

/**
 * A column's cells as doubles that order as Cypher orders them, so a scan compares rows against a bound or a
 * constant with one typed-array read instead of boxing and dispatching on each value's type. A cell of the
 * column's kind maps to its place on one scale (numbers: their exact double; strings: their rank among the
 * column's distinct strings); every other cell (null, NaN, a big integer, a value of another type) is NaN,
 * which tells the caller to decide that row with the general comparison.
 */
export interface OrderKeys {
  readonly keys: Float64Array
  /**
   * Where `value` falls on the keys' scale (between two ranks for a string the column lacks), so comparing a
   * key with it answers as comparing the values; undefined when `value` is not of the column's kind.
   */
  position(value: unknown): number | undefined
}

const cache = new WeakMap<PropertyColumn, OrderKeys | null>()

/**
 * The order keys of a numeric column (any cell a number or integer) or of an all-string column; undefined for
 * other columns. Built once per column (columns are immutable and dropped on writes).
 */
export function orderKeysOf(column: PropertyColumn): OrderKeys | undefined {
  let keys = cache.get(column)
  if (keys === undefined) {
    keys = numericKeys(column) ?? stringKeys(column) ?? null
    cache.set(column, keys)
  }
  return keys ?? undefined
}

/** Integers within ±2^53 convert to doubles exactly; beyond, two of them could round to one double. */
const SAFE = 2n ** 53n

function exactDouble(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isNaN(value) ? undefined : value
  if (typeof value === 'bigint') return value >= -SAFE && value <= SAFE ? Number(value) : undefined
  return undefined
}

function numericKeys(column: PropertyColumn): OrderKeys | undefined {
  const { values } = column
  const keys = new Float64Array(values.length)
  let numeric = false
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    const double = typeof value === 'number' || typeof value === 'bigint' ? exactDouble(value) : undefined
    if (double === undefined) keys[i] = Number.NaN
    else {
      keys[i] = double
      numeric = true
    }
  }
  return numeric ? { keys, position: exactDouble } : undefined
}

function stringKeys(column: PropertyColumn): OrderKeys | undefined {
  const { codes, dictionary } = column
  if (codes === undefined || dictionary === undefined || dictionary.length === 0) return undefined
  // The default sort compares UTF-16 code units, as Cypher's string order (and `<`) does.
  const sorted = [...dictionary].sort()
  const rank = new Map(sorted.map((value, i) => [value, i]))
  const rankOfCode = dictionary.map((value) => rank.get(value) as number)
  const keys = new Float64Array(codes.length)
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] as number
    keys[i] = code < 0 ? Number.NaN : (rankOfCode[code] as number)
  }
  const position = (value: unknown): number | undefined => {
    if (typeof value !== 'string') return undefined
    let lo = 0
    let hi = sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((sorted[mid] as string) < value) lo = mid + 1
      else hi = mid
    }
    return sorted[lo] === value ? lo : lo - 0.5
  }
  return { keys, position }
}
