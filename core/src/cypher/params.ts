import { CypherError } from './errors.js'
import { decodeTaggedValue, isTaggedValue } from './tagged-value.js'
import { type CypherMap, checkInt, type Value } from './values.js'

const MAX_PARAM_DEPTH = 64

/**
 * Converts JSON-ish parameters to Cypher values, bound structurally (never spliced into text).
 * JS numbers that are integers become Cypher integers, others floats; bigints stay integers;
 * arrays become lists and plain objects maps.
 */
export function bindParams(
  params: Record<string, unknown> | undefined,
  maxListSize: number,
): Map<string, Value> {
  const out = new Map<string, Value>()
  if (params === undefined || params === null) return out
  if (typeof params !== 'object' || Array.isArray(params)) {
    throw new CypherError('INVALID_PARAMETER', 'params must be an object', 'limit')
  }
  for (const name of Object.keys(params)) out.set(name, convert(params[name], name, 0, maxListSize))
  return out
}

function convert(value: unknown, path: string, depth: number, maxListSize: number): Value {
  if (depth > MAX_PARAM_DEPTH) {
    throw new CypherError('UNSUPPORTED_PARAMETER_TYPE', `parameter ${path} is nested too deeply`, 'limit')
  }
  if (value === null) return null
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value
    case 'bigint':
      try {
        return checkInt(value)
      } catch {
        throw new CypherError(
          'UNSUPPORTED_PARAMETER_TYPE',
          `parameter ${path} is outside the 64-bit integer range`,
          'limit',
        )
      }
    case 'number':
      if (Number.isInteger(value)) {
        if (!Number.isSafeInteger(value)) {
          throw new CypherError(
            'UNSUPPORTED_PARAMETER_TYPE',
            `parameter ${path} is an integer beyond 2^53 that JSON cannot carry exactly; pass it as a bigint`,
            'limit',
          )
        }
        return BigInt(value)
      }
      return value
    case 'object': {
      if (Array.isArray(value)) {
        if (value.length > maxListSize) {
          throw new CypherError(
            'QUERY_BUDGET_EXCEEDED',
            `query budget exceeded for list_size: actual ${value.length}, limit ${maxListSize}`,
            'limit',
          )
        }
        return value.map((item, i) => convert(item, `${path}[${i}]`, depth + 1, maxListSize))
      }
      // A typed door (Bolt) hands temporal values and points over already built.
      if (isTaggedValue(value)) return value
      const proto = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) {
        throw new CypherError('UNSUPPORTED_PARAMETER_TYPE', `parameter ${path} is not a JSON value`, 'limit')
      }
      const record = value as Record<string, unknown>
      const temporal = decodeTemporal(record, path)
      if (temporal !== undefined) return temporal
      const map: CypherMap = new Map()
      for (const key of Object.keys(record))
        map.set(key, convert(record[key], `${path}.${key}`, depth + 1, maxListSize))
      return map
    }
    default:
      throw new CypherError(
        'UNSUPPORTED_PARAMETER_TYPE',
        `parameter ${path} has unsupported type ${typeof value}`,
        'limit',
      )
  }
}

/** `{"$date": "2015-07-21"}` and its siblings: exactly one key, a known tag, a string (else an ordinary map). */
function decodeTemporal(record: Record<string, unknown>, path: string): Value | undefined {
  try {
    return decodeTaggedValue(record)
  } catch (error) {
    throw new CypherError('INVALID_PARAMETER', `parameter ${path}: ${(error as Error).message}`, 'limit')
  }
}
