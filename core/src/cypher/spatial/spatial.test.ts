import { beforeEach, describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { CypherEngine, type CypherResult } from '../engine.js'

let engine: CypherEngine

async function run(query: string, params?: Record<string, unknown>): Promise<CypherResult> {
  return engine.run({ query, mode: 'auto', ...(params ? { params } : {}) })
}
async function rows(query: string, params?: Record<string, unknown>): Promise<unknown[][]> {
  const result = await run(query, params)
  if (result.status !== 'Success') throw new Error(JSON.stringify(result.validation_errors))
  return result.data?.rows ?? []
}
async function refusal(query: string): Promise<string> {
  const result = await run(query)
  expect(result.status).not.toBe('Success')
  return result.validation_errors[0]?.message ?? ''
}

beforeEach(() => {
  engine = new CypherEngine(new GraphCatalog())
})

describe('point()', () => {
  it('infers the system from the keys and the dimension, or takes crs or srid', async () => {
    expect(
      await rows(`RETURN point({x: 1, y: 2}).crs, point({x: 1, y: 2, z: 3}).srid,
        point({longitude: 1, latitude: 2}).crs, point({longitude: 1, latitude: 2, height: 3}).crs,
        point({x: 1, y: 2, crs: 'WGS-84'}).latitude, point({x: 1, y: 2, z: 3, srid: 4979}).height`),
    ).toEqual([['cartesian', 9157, 'wgs-84', 'wgs-84-3d', 2, 3]])
  })

  it('gives null for null or a null coordinate, and refuses what makes no point', async () => {
    expect(await rows('RETURN point(null), point({x: null, y: 1})')).toEqual([[null, null]])
    expect(await refusal("RETURN point({x: 1, y: 2, crs: 'mars'})")).toMatch(/unknown coordinate reference/)
    expect(await refusal('RETURN point({x: 1})')).toMatch(/needs x and y/)
    expect(await refusal("RETURN point({x: 1, y: 'a'})")).toMatch(/must be a number/)
    expect(await refusal('RETURN point({longitude: 1, latitude: 91})')).toMatch(/latitude/)
    expect(await refusal("RETURN point({x: 1, y: 2, crs: 'cartesian-3d'})")).toMatch(/3 coordinates/)
  })

  it('wraps a longitude beyond ±180 and reads fields by their names', async () => {
    expect(await rows('RETURN point({longitude: 190, latitude: 0}).x')).toEqual([[-170]])
    expect(
      await rows(
        'WITH point({latitude: 3, longitude: 4, height: 5}) AS p RETURN p.x, p.y, p.z, p.latitude, p.longitude, p.height',
      ),
    ).toEqual([[4, 3, 5, 3, 4, 5]])
    expect(await refusal('RETURN point({x: 1, y: 2}).latitude')).toMatch(/not available on a cartesian point/)
    expect(await refusal('RETURN point({x: 1, y: 2}).z')).toMatch(/not available/)
  })

  it("prints as Neo4j's toString does, and has the type POINT", async () => {
    expect(
      await rows(`RETURN toString(point({x: 3, y: 4})), toString(point({longitude: 12.5, latitude: 55.25, height: 1})),
        valueType(point({x: 1, y: 2})), point({x: 1, y: 2}) IS :: POINT`),
    ).toEqual([
      [
        "point({x: 3.0, y: 4.0, crs: 'cartesian'})",
        "point({x: 12.5, y: 55.25, z: 1.0, crs: 'wgs-84-3d'})",
        'POINT NOT NULL',
        true,
      ],
    ])
  })
})

describe('point.distance and point.withinBBox', () => {
  it('measures Euclidean and haversine distances, null across systems', async () => {
    expect(
      await rows(`RETURN
      point.distance(point({x: 0, y: 0}), point({x: 3, y: 4})),
      point.distance(point({x: 0, y: 0, z: 0}), point({x: 1, y: 2, z: 2})),
      point.distance(point({x: 0, y: 0}), point({x: 0, y: 0, z: 0})),
      point.distance(null, point({x: 0, y: 0}))`),
    ).toEqual([[5, 3, null, null]])
    // A quarter of the equator on Neo4j's sphere (radius 6378140 m).
    const quarter = (
      await rows(
        'RETURN point.distance(point({longitude: 0, latitude: 0}), point({longitude: 90, latitude: 0}))',
      )
    )[0]?.[0]
    expect(quarter).toBeCloseTo((Math.PI / 2) * 6378140, 6)
    // In 3D the height difference adds by Pythagoras to the arc at the average height.
    const lifted = (
      await rows(
        'RETURN point.distance(point({longitude: 0, latitude: 0, height: 0}), point({longitude: 0, latitude: 0, height: 30}))',
      )
    )[0]?.[0]
    expect(lifted).toBeCloseTo(30, 9)
  })

  it('tests boxes with their bounds included, across the 180th meridian, null across systems', async () => {
    expect(
      await rows(`RETURN
        point.withinBBox(point({x: 10, y: 5}), point({x: 0, y: 0}), point({x: 10, y: 10})),
        point.withinBBox(point({x: 11, y: 5}), point({x: 0, y: 0}), point({x: 10, y: 10})),
        point.withinBBox(point({longitude: 180, latitude: 1}), point({longitude: 179, latitude: 0}), point({longitude: -179, latitude: 2})),
        point.withinBBox(point({longitude: 0, latitude: 1}), point({longitude: 179, latitude: 0}), point({longitude: -179, latitude: 2})),
        point.withinBBox(point({x: 1, y: 1}), point({longitude: 0, latitude: 0}), point({longitude: 2, latitude: 2})),
        point.withinBBox(null, point({x: 0, y: 0}), point({x: 1, y: 1}))`),
    ).toEqual([[true, false, true, false, null, null]])
  })
})

describe('points as values', () => {
  it('are equal by system and coordinates, not comparable by <, ordered by SRID then coordinates', async () => {
    expect(
      await rows(`RETURN point({x: 1, y: 2}) = point({x: 1.0, y: 2.0}),
        point({x: 1, y: 2}) = point({x: 1, y: 2, crs: 'wgs-84'}), point({x: 1, y: 2}) < point({x: 2, y: 2})`),
    ).toEqual([[true, false, null]])
    expect(
      await rows(`UNWIND [point({x: 2, y: 0}), point({longitude: 5, latitude: 5}), point({x: 1, y: 9}), [1], 'a', date('2024-01-01')] AS v
        RETURN CASE WHEN v IS :: POINT THEN v.srid + ':' + toString(v.x) ELSE valueType(v) END ORDER BY v`),
    ).toEqual([
      ['LIST<INTEGER NOT NULL> NOT NULL'],
      ['4326:5.0'],
      ['7203:1.0'],
      ['7203:2.0'],
      ['DATE NOT NULL'],
      ['STRING NOT NULL'],
    ])
    expect(
      await rows('UNWIND [point({x: 1, y: 2}), point({x: 1.0, y: 2})] AS p RETURN count(DISTINCT p)'),
    ).toEqual([[1]])
  })

  it('are stored as properties, singly and in lists, found by equality, and travel as tagged JSON', async () => {
    await rows(
      `CREATE (:Place {at: point({longitude: 12.5, latitude: 55.5}), route: [point({x: 1, y: 2}), point({x: 3, y: 4})]})`,
    )
    expect(
      await rows('MATCH (p:Place {at: point({longitude: 12.5, latitude: 55.5})}) RETURN p.at, p.route'),
    ).toEqual([
      [
        { $point: { crs: 'wgs-84', longitude: 12.5, latitude: 55.5 } },
        [{ $point: { crs: 'cartesian', x: 1, y: 2 } }, { $point: { crs: 'cartesian', x: 3, y: 4 } }],
      ],
    ])
    expect(
      await rows('RETURN $p.height, $p.crs', {
        p: { $point: { crs: 'wgs-84-3d', longitude: 1, latitude: 2, height: 3 } },
      }),
    ).toEqual([[3, 'wgs-84-3d']])
    expect(
      (await run('RETURN $p', { p: { $point: { x: 1, y: 2, w: 3 } } })).validation_errors[0]?.message,
    ).toMatch(/no field 'w'/)
    expect(await refusal('CREATE (:Place {at: {p: point({x: 1, y: 2})}})')).toMatch(/map/i)
  })
})
