import type { PointValue } from './point.js'

/** The sphere Neo4j measures WGS-84 distances on (meters). */
export const EARTH_RADIUS_METERS = 6378140.0

const radians = (degrees: number): number => (degrees * Math.PI) / 180

/**
 * `point.distance`: Euclidean in a Cartesian system; in WGS-84 the haversine great-circle distance on Neo4j's
 * sphere, taken at the two points' average height in 3D and combined with their height difference by
 * Pythagoras. Null when the systems differ.
 */
export function pointDistance(a: PointValue, b: PointValue): number | null {
  if (a.srid !== b.srid) return null
  if (!a.crs.geographic) {
    let sum = 0
    for (let i = 0; i < a.coords.length; i++) sum += ((a.coords[i] as number) - (b.coords[i] as number)) ** 2
    return Math.sqrt(sum)
  }
  const [lon1, lat1] = [radians(a.x), radians(a.y)]
  const [lon2, lat2] = [radians(b.x), radians(b.y)]
  const alpha =
    Math.sin((lat2 - lat1) / 2) ** 2 + Math.cos(lat1) * Math.cos(lat2) * Math.sin((lon2 - lon1) / 2) ** 2
  const greatCircle = 2 * Math.atan2(Math.sqrt(alpha), Math.sqrt(1 - alpha))
  if (a.z === undefined || b.z === undefined) return EARTH_RADIUS_METERS * greatCircle
  const surface = (EARTH_RADIUS_METERS + (a.z + b.z) / 2) * greatCircle
  return Math.sqrt(surface ** 2 + (b.z - a.z) ** 2)
}

/**
 * `point.withinBBox`: bounds included; null when the systems differ. In WGS-84 a lower-left longitude east of
 * the upper-right one is a box across the 180th meridian, and a lower-left latitude north of the upper-right one
 * an empty box.
 */
export function withinBBox(p: PointValue, lowerLeft: PointValue, upperRight: PointValue): boolean | null {
  if (p.srid !== lowerLeft.srid || p.srid !== upperRight.srid) return null
  const between = (i: number): boolean =>
    (lowerLeft.coords[i] as number) <= (p.coords[i] as number) &&
    (p.coords[i] as number) <= (upperRight.coords[i] as number)
  for (let i = 1; i < p.coords.length; i++) if (!between(i)) return false
  if (p.crs.geographic && lowerLeft.x > upperRight.x) return p.x >= lowerLeft.x || p.x <= upperRight.x
  return between(0)
}
