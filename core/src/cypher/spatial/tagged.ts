import { type PointValue, pointFromFields } from './point.js'

/**
 * The JSON form of a point, in results and parameters alike and in the storage encoding: an object with the one
 * key `$point` holding the system's name and its coordinates by their names —
 * `{"$point": {"crs": "wgs-84", "longitude": 12.56, "latitude": 55.67}}`,
 * `{"$point": {"crs": "cartesian-3d", "x": 1, "y": 2, "z": 3}}`.
 */
export const POINT_TAG = '$point'

export function encodePointTag(p: PointValue): { $point: Record<string, string | number> } {
  const names = p.crs.geographic ? ['longitude', 'latitude', 'height'] : ['x', 'y', 'z']
  const body: Record<string, string | number> = { crs: p.crs.name }
  p.coords.forEach((c, i) => {
    body[names[i] as string] = c
  })
  return { $point: body }
}

const KEYS = new Set(['crs', 'srid', 'x', 'y', 'z', 'longitude', 'latitude', 'height'])

/**
 * The point a `$point` body stands for: its keys are those `point()` takes, every coordinate a number. Anything
 * else under the tag is an error (the caller meant a point).
 */
export function decodePointTag(body: unknown): PointValue {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new Error('$point holds an object of coordinates')
  const record = body as Record<string, unknown>
  for (const key of Object.keys(record)) if (!KEYS.has(key)) throw new Error(`$point has no field '${key}'`)
  const read = (key: string): number | undefined => {
    const value = record[key]
    if (value === undefined) return undefined
    if (typeof value !== 'number') throw new Error(`$point coordinate '${key}' must be a number`)
    return value
  }
  const crs = record.crs
  if (crs !== undefined && typeof crs !== 'string') throw new Error('$point crs must be a string')
  const srid = record.srid
  if (srid !== undefined && typeof srid !== 'number') throw new Error('$point srid must be a number')
  return pointFromFields(read, crs, srid) as PointValue
}
