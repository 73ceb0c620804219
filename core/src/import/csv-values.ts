import { fromString } from '../cypher/temporal/from-string.js'
import type { PropertyValue, ScalarProperty } from '../graph/types.js'
import type { ScalarType } from './csv-header.js'

const INT = /^[+-]?\d+$/
const MIN_INT = -(2n ** 63n)
const MAX_INT = 2n ** 63n - 1n
/** Java's `Double.parseDouble` spellings that neo4j-admin accepts beside plain decimals. */
const FLOAT = /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|NaN|Infinity)$/

/** One field's text as a value of `type`; throws a message saying what the text is not. */
export function scalarValue(text: string, type: ScalarType): ScalarProperty {
  switch (type) {
    case 'string':
      return text
    case 'int': {
      const t = text.trim()
      if (!INT.test(t)) throw new Error(`${JSON.stringify(text)} is not an integer`)
      const v = BigInt(t)
      if (v < MIN_INT || v > MAX_INT) throw new Error(`${text} is outside the 64-bit integer range`)
      return v
    }
    case 'float': {
      const t = text.trim()
      if (!FLOAT.test(t)) throw new Error(`${JSON.stringify(text)} is not a number`)
      return Number(t)
    }
    case 'boolean': {
      const t = text.trim().toLowerCase()
      if (t === 'true') return true
      if (t === 'false') return false
      throw new Error(`${JSON.stringify(text)} is not a boolean (true or false)`)
    }
    default:
      try {
        return fromString(type, text.trim())
      } catch (error) {
        throw new Error(`${JSON.stringify(text)} is not a ${type}: ${(error as Error).message}`)
      }
  }
}

/**
 * A property value from a field: a scalar, or for an array type the items between `arrayDelimiter`s. An empty
 * field is no property at all (undefined), as in neo4j-admin.
 */
export function fieldValue(
  text: string,
  type: ScalarType,
  array: boolean,
  arrayDelimiter: string,
): PropertyValue | undefined {
  if (text === '') return undefined
  if (!array) return scalarValue(text, type)
  return text.split(arrayDelimiter).map((item) => scalarValue(item, type))
}
