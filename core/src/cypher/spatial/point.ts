import { runtimeError, typeError } from '../errors.js'

/**
 * Cypher's POINT (Neo4j 5 semantics): two or three float coordinates in one of four coordinate reference
 * systems. Geographic points keep longitude as x and latitude as y, as Neo4j (and Bolt) do. Immutable.
 */
export interface Crs {
  readonly name: 'cartesian' | 'cartesian-3d' | 'wgs-84' | 'wgs-84-3d'
  readonly srid: number
  readonly dimension: 2 | 3
  readonly geographic: boolean
}

export const CRSS: readonly Crs[] = [
  { name: 'wgs-84', srid: 4326, dimension: 2, geographic: true },
  { name: 'wgs-84-3d', srid: 4979, dimension: 3, geographic: true },
  { name: 'cartesian', srid: 7203, dimension: 2, geographic: false },
  { name: 'cartesian-3d', srid: 9157, dimension: 3, geographic: false },
]

export class PointValue {
  readonly coords: readonly number[]
  constructor(
    readonly crs: Crs,
    coords: readonly number[],
  ) {
    if (coords.length !== crs.dimension)
      throw runtimeError(
        'INVALID_ARGUMENT_VALUE',
        `a ${crs.name} point has ${crs.dimension} coordinates, got ${coords.length}`,
      )
    for (const c of coords)
      if (!Number.isFinite(c))
        throw runtimeError('INVALID_ARGUMENT_VALUE', `a point coordinate must be finite, got ${c}`)
    this.coords = crs.geographic ? geographic(coords) : [...coords]
  }
  get srid(): number {
    return this.crs.srid
  }
  get x(): number {
    return this.coords[0] as number
  }
  get y(): number {
    return this.coords[1] as number
  }
  /** The third coordinate, or undefined for a 2D point. */
  get z(): number | undefined {
    return this.coords[2]
  }
}

/** Latitude must lie in [-90, 90]; a longitude outside [-180, 180] is wrapped into it, as Neo4j does. */
function geographic(coords: readonly number[]): number[] {
  const [lon, lat, ...rest] = coords as [number, number, ...number[]]
  if (lat < -90 || lat > 90)
    throw runtimeError('INVALID_ARGUMENT_VALUE', `a WGS-84 latitude lies in [-90, 90], got ${lat}`)
  const wrapped = lon < -180 || lon > 180 ? ((((lon + 180) % 360) + 360) % 360) - 180 : lon
  return [wrapped, lat, ...rest]
}

export const isPoint = (value: unknown): value is PointValue => value instanceof PointValue

export function crsByName(name: string): Crs | undefined {
  const lower = name.toLowerCase()
  // Neo4j's documentation also spells the 2D geographic system 'WGS-84-2D'.
  return CRSS.find((crs) => crs.name === lower || (lower === 'wgs-84-2d' && crs.srid === 4326))
}

export function crsBySrid(srid: number): Crs | undefined {
  return CRSS.find((crs) => crs.srid === srid)
}

export function pointEquals(a: PointValue, b: PointValue): boolean {
  return a.srid === b.srid && a.coords.every((c, i) => c === b.coords[i])
}

/** Orderability among points: by SRID, then each coordinate in turn. */
export function pointOrder(a: PointValue, b: PointValue): number {
  if (a.srid !== b.srid) return a.srid - b.srid
  for (let i = 0; i < a.coords.length; i++) {
    const d = (a.coords[i] as number) - (b.coords[i] as number)
    if (d !== 0) return d
  }
  return 0
}

export function pointKey(p: PointValue): string {
  return `P${p.srid}:${p.coords.join(':')}`
}

/** Java's rendering of a double, as Neo4j prints coordinates: `3.0`, `12.78`, `1.0E10`. */
function javaDouble(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e7) return `${n}.0`
  const text = String(n)
  if (!/e/.test(text)) return text
  const [mantissa, exponent] = text.split('e') as [string, string]
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`
}

/** `toString(point)`: Neo4j's form, `point({x: 3.0, y: 4.0, crs: 'cartesian'})`. */
export function formatPoint(p: PointValue): string {
  const names = ['x', 'y', 'z']
  const coords = p.coords.map((c, i) => `${names[i]}: ${javaDouble(c)}`).join(', ')
  return `point({${coords}, crs: '${p.crs.name}'})`
}

const FIELDS = ['x', 'y', 'z', 'longitude', 'latitude', 'height', 'crs', 'srid'] as const

/** `p.x`, `p.latitude`, `p.crs`, …: a field the point's system lacks is an error, as in Neo4j. */
export function pointProperty(p: PointValue, key: string): string | number | bigint {
  const field = key.toLowerCase()
  if (!(FIELDS as readonly string[]).includes(field))
    throw runtimeError('INVALID_ARGUMENT_VALUE', `a point has no field '${key}'`)
  if (field === 'crs') return p.crs.name
  if (field === 'srid') return BigInt(p.srid)
  const geo = field === 'longitude' || field === 'latitude' || field === 'height'
  if (geo && !p.crs.geographic)
    throw runtimeError('INVALID_ARGUMENT_VALUE', `field '${key}' is not available on a ${p.crs.name} point`)
  const at = field === 'x' || field === 'longitude' ? 0 : field === 'y' || field === 'latitude' ? 1 : 2
  const value = p.coords[at]
  if (value === undefined)
    throw runtimeError('INVALID_ARGUMENT_VALUE', `field '${key}' is not available on a ${p.crs.name} point`)
  return value
}

type Coordinate = number | null | undefined

/**
 * `point({x, y[, z]})`, `point({longitude, latitude[, height]})`, with an optional `crs` (a name) or `srid`.
 * A null coordinate gives null, as Neo4j documents. `read` gives a key's value as a number (a type error
 * otherwise), null, or undefined when the key is absent.
 */
export function pointFromFields(
  read: (key: string) => Coordinate,
  crsName: string | null | undefined,
  srid: number | null | undefined,
): PointValue | null {
  const has = (key: string): boolean => read(key) !== undefined
  const geoKeys = has('longitude') || has('latitude')
  const xyKeys = has('x') || has('y')
  if (geoKeys && xyKeys)
    throw runtimeError(
      'INVALID_ARGUMENT_VALUE',
      'a point takes either x and y or longitude and latitude, not both',
    )
  if (crsName === null || srid === null) return null
  if (crsName !== undefined && srid !== undefined)
    throw runtimeError('INVALID_ARGUMENT_VALUE', 'a point takes either crs or srid, not both')
  const x = geoKeys ? read('longitude') : read('x')
  const y = geoKeys ? read('latitude') : read('y')
  const height = read('height')
  const zValue = read('z')
  if (height !== undefined && zValue !== undefined)
    throw runtimeError('INVALID_ARGUMENT_VALUE', 'a point takes either z or height, not both')
  if (height !== undefined && !geoKeys && crsName === undefined && srid === undefined)
    throw runtimeError('INVALID_ARGUMENT_VALUE', 'height belongs to a geographic point (longitude, latitude)')
  const z = height ?? zValue
  if (x === undefined || y === undefined)
    throw runtimeError(
      'INVALID_ARGUMENT_VALUE',
      'a point needs x and y, or longitude and latitude (with an optional z or height)',
    )
  if (x === null || y === null || z === null) return null
  let crs: Crs | undefined
  if (crsName !== undefined) {
    crs = crsByName(crsName)
    if (crs === undefined)
      throw runtimeError('INVALID_ARGUMENT_VALUE', `unknown coordinate reference system '${crsName}'`)
  } else if (srid !== undefined) {
    crs = crsBySrid(srid)
    if (crs === undefined) throw runtimeError('INVALID_ARGUMENT_VALUE', `unknown SRID ${srid}`)
  } else crs = CRSS.find((c) => c.geographic === geoKeys && c.dimension === (z === undefined ? 2 : 3))
  if (crs === undefined) throw typeError('no coordinate reference system fits the point')
  if (geoKeys && !crs.geographic)
    throw runtimeError('INVALID_ARGUMENT_VALUE', `longitude and latitude do not fit the ${crs.name} system`)
  return new PointValue(crs, z === undefined ? [x, y] : [x, y, z])
}
