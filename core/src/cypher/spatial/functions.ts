import { typeError } from '../errors.js'
import type { FunctionDef } from '../functions.js'
import { typeName, type Value } from '../values.js'
import { pointDistance, withinBBox } from './geometry.js'
import { isPoint, type PointValue, pointFromFields } from './point.js'

const argError = (name: string, value: Value): Error =>
  typeError(`${name}() does not accept an argument of type ${typeName(value)}`)

function pointArg(name: string, value: Value): PointValue {
  if (!isPoint(value)) throw argError(name, value)
  return value
}

/** `point(map)`: the map's coordinates and optional `crs` or `srid`; null for null. */
function point(input: Value): Value {
  if (input === null) return null
  if (!(input instanceof Map)) throw argError('point', input)
  const read = (key: string): number | null | undefined => {
    if (!input.has(key)) return undefined
    const value = input.get(key) as Value
    if (value === null) return null
    if (typeof value === 'number') return value
    if (typeof value === 'bigint') return Number(value)
    throw typeError(`point() coordinate '${key}' must be a number, got ${typeName(value)}`)
  }
  const crs = input.get('crs')
  if (crs !== undefined && crs !== null && typeof crs !== 'string')
    throw typeError(`point() crs must be a string, got ${typeName(crs)}`)
  const srid = input.get('srid')
  if (srid !== undefined && srid !== null && typeof srid !== 'bigint' && typeof srid !== 'number')
    throw typeError(`point() srid must be an integer, got ${typeName(srid)}`)
  return pointFromFields(read, crs, srid === undefined || srid === null ? srid : Number(srid))
}

/** The spatial functions, by lower-case name. */
export const SPATIAL_FUNCTIONS: Record<string, FunctionDef> = {
  point: { min: 1, max: 1, fn: ([input]) => point(input as Value) },
  'point.distance': {
    min: 2,
    max: 2,
    fn: ([a, b]) =>
      a === null || b === null
        ? null
        : pointDistance(pointArg('point.distance', a as Value), pointArg('point.distance', b as Value)),
  },
  'point.withinbbox': {
    min: 3,
    max: 3,
    fn: ([p, lowerLeft, upperRight]) =>
      p === null || lowerLeft === null || upperRight === null
        ? null
        : withinBBox(
            pointArg('point.withinBBox', p as Value),
            pointArg('point.withinBBox', lowerLeft as Value),
            pointArg('point.withinBBox', upperRight as Value),
          ),
  },
}
