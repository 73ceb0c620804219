import { describe, expect, it } from 'vitest'
import { CypherEngine } from '../cypher/engine.js'
import { equals, type Value } from '../cypher/values.js'
import { GraphCatalog } from './catalog.js'
import { indexHitsAreEqual, indexKey, PropertyIndex } from './indexes.js'
import type { PropertyValue } from './types.js'

/** Stored values of every kind, with the neighbours an index key could confuse them with. */
async function zoo(): Promise<PropertyValue[]> {
  const engine = new CypherEngine(new GraphCatalog())
  const outcome = await engine.execute({
    query: `RETURN date('2024-02-29') AS d, datetime('2024-02-29T10:00:00+01:00') AS t,
                   datetime('2024-02-29T09:00:00Z') AS u, duration('P1D') AS p, point({x: 1, y: 2}) AS q`,
    mode: 'read',
  })
  const temporal = (outcome.raw?.rows[0] ?? []) as PropertyValue[]
  expect(temporal).toHaveLength(5)
  const big = 2n ** 53n
  const values: PropertyValue[] = [
    ...temporal,
    '',
    'a',
    '1',
    `\u0000i${big + 1n}`,
    0,
    -0,
    1,
    1.5,
    -1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    2 ** 53,
    2 ** 60,
    Number.MAX_SAFE_INTEGER,
    0n,
    1n,
    -1n,
    big - 1n,
    big,
    big + 1n,
    2n ** 60n,
    -(2n ** 60n),
    true,
    false,
    [1n],
    [1],
    ['a'],
  ]
  // Strings spelled like the tagged keys of the values above.
  const tagged = values.map(indexKey).filter((key) => typeof key === 'string' && key.startsWith('\u0000'))
  expect(tagged.length).toBeGreaterThan(8)
  return [...values, ...(tagged as string[])]
}

function checkIndex(index: PropertyIndex, values: PropertyValue[]): void {
  for (const [id, value] of values.entries()) index.add(1, 2, value, id)
  for (const wanted of values) {
    const hits = new Set(index.ids(1, 2, wanted))
    const equal = values.flatMap((stored, id) =>
      equals(wanted as Value, stored as Value) === true ? [id] : [],
    )
    // The index may answer more than the equal values (the seek then checks each), never fewer.
    if (indexKey(wanted) !== undefined)
      for (const id of equal)
        expect(hits.has(id), `${String(wanted)} misses ${String(values[id])}`).toBe(true)
    if (indexHitsAreEqual(wanted))
      expect(
        [...hits].sort((a, b) => a - b),
        String(wanted),
      ).toEqual(equal)
  }
}

describe('the property index against Cypher equality', () => {
  it('answers only equal values where a seek skips the check, and never misses an equal one', async () => {
    const values = await zoo()
    // A transaction's index (Maps of values) and the store's (hashes, values read back from the records).
    for (const index of [new PropertyIndex(), new PropertyIndex(false, (id) => values[id])])
      checkIndex(index, values)
  })

  it('lets a seek skip the check for plain keys, not for ones that can meet a tagged key', () => {
    for (const value of [true, 0, -0, 1.5, Number.POSITIVE_INFINITY, 2 ** 53 - 1, 7n, 'uid-7', ''])
      expect(indexHitsAreEqual(value), String(value)).toBe(true)
    for (const value of [Number.NaN, 2 ** 53, 2n ** 53n, '\u0000i1', [1n]])
      expect(indexHitsAreEqual(value), String(value)).toBe(false)
  })
})

describe('a MATCH seek on the index', () => {
  it('finds what Cypher equality finds, where the seek checks its candidates and where it does not', async () => {
    const engine = new CypherEngine(new GraphCatalog())
    const run = async (query: string, params: Record<string, unknown> = {}) => {
      const result = await engine.run({ query, params, mode: 'auto' })
      if (result.status !== 'Success') throw new Error(JSON.stringify(result.validation_errors))
      return result.data?.rows
    }
    await run(
      `CREATE (:L {k: 9007199254740993, n: 'big'}), (:L {k: $tagged, n: 'text'}),
               (:L {k: 9007199254740992, n: 'two53'}), (:L {k: 1, n: 'one'}), (:L:M {k: 'a', n: 'a'})`,
      {
        tagged: '\u0000i9007199254740993',
      },
    )
    const seek = 'MATCH (x:L {k: $k}) RETURN x.n ORDER BY x.n'
    expect(await run(seek, { k: '\u0000i9007199254740993' })).toEqual([['text']])
    expect(await run('MATCH (x:L {k: 9007199254740993}) RETURN x.n')).toEqual([['big']])
    expect(await run('MATCH (x:L {k: 2.0 ^ 53}) RETURN x.n')).toEqual([['two53']])
    expect(await run('MATCH (x:L {k: 1.0}) RETURN x.n')).toEqual([['one']])
    expect(await run(seek, { k: 'a' })).toEqual([['a']])
    expect(await run('MATCH (x:L:M {k: 1}) RETURN x.n')).toEqual([])
    expect(await run("MATCH (x:L {k: 'a', n: 'b'}) RETURN x.n")).toEqual([])
    expect(await run('MATCH (x:L {k: 0.0 / 0.0}) RETURN x.n')).toEqual([])
  })
})
