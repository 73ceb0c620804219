import { beforeEach, describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { CypherEngine } from '../engine.js'

let engine: CypherEngine

async function rows(query: string): Promise<unknown[][]> {
  const result = await engine.run({ query, mode: 'auto' })
  if (result.status !== 'Success') throw new Error(JSON.stringify(result.validation_errors))
  return result.data?.rows ?? []
}
async function code(query: string): Promise<string | undefined> {
  return (await engine.run({ query, mode: 'auto' })).validation_errors[0]?.code
}

// A line a -> b -> c -> d of stops; d is no Stop; the hops weigh 1, 5, 2.
beforeEach(async () => {
  engine = new CypherEngine(new GraphCatalog())
  await rows(`CREATE (:Stop {n: 'a'})-[:NEXT {w: 1}]->(:Stop {n: 'b'})-[:NEXT {w: 5}]->(:Stop {n: 'c'})
    -[:NEXT {w: 2}]->(:End {n: 'd'})`)
})

describe('quantified path groups of one hop', () => {
  it('bind their inner variables to lists, hop by hop, in the pattern order', async () => {
    expect(
      await rows(`MATCH ({n: 'a'}) ((x)-[r:NEXT]->(y)){1,3} (z)
        RETURN z.n, [v IN x | v.n], [v IN y | v.n], [e IN r | e.w] ORDER BY z.n`),
    ).toEqual([
      ['b', ['a'], ['b'], [1]],
      ['c', ['a', 'b'], ['b', 'c'], [1, 5]],
      ['d', ['a', 'b', 'c'], ['b', 'c', 'd'], [1, 5, 2]],
    ])
    // Walked from the right: the lists still follow the pattern from left to right.
    expect(
      await rows(`MATCH ({n: 'd'}) ((y)<-[:NEXT]-(x))+ ({n: 'b'}) RETURN [v IN x | v.n], [v IN y | v.n]`),
    ).toEqual([
      [
        ['c', 'b'],
        ['d', 'c'],
      ],
    ])
  })

  it('hold their inner labels, inline predicates and WHERE at every hop', async () => {
    expect(await rows(`MATCH ({n: 'a'}) ((x)-[:NEXT]->(y:Stop))+ (z) RETURN z.n ORDER BY z.n`)).toEqual([
      ['b'],
      ['c'],
    ])
    expect(
      await rows(`MATCH ({n: 'a'}) ((x)-[r:NEXT]->(y) WHERE r.w < 5 AND x.n <> 'z')+ (z) RETURN z.n`),
    ).toEqual([['b']])
    expect(await rows(`MATCH ({n: 'a'}) ((x)-[:NEXT]->(y WHERE y.n <> 'c'))+ (z) RETURN z.n`)).toEqual([
      ['b'],
    ])
    // The clause's WHERE sees the lists.
    expect(
      await rows(`MATCH ({n: 'a'}) ((x)-[:NEXT]->(y))+ (z) WHERE size(y) = 2 RETURN [v IN y | v.n]`),
    ).toEqual([[['b', 'c']]])
  })

  it("take a quantified relationship's inline WHERE per relationship", async () => {
    expect(await rows(`MATCH ({n: 'a'})-[r:NEXT WHERE r.w <> 5]->+(z) RETURN z.n, size(r)`)).toEqual([
      ['b', 1],
    ])
  })

  it('work under SHORTEST with their conditions and group variables', async () => {
    await rows(
      `MATCH (a {n: 'a'}), (c {n: 'c'}) CREATE (a)-[:NEXT {w: 9}]->(:Detour {n: 'x'})-[:NEXT {w: 9}]->(c)`,
    )
    expect(
      await rows(
        `MATCH p = SHORTEST 1 ({n: 'a'}) ((x)-[r:NEXT]-(y) WHERE r.w < 9)+ ({n: 'c'}) RETURN [v IN y | v.n], length(p)`,
      ),
    ).toEqual([[['b', 'c'], 2]])
    expect(
      await rows(
        `MATCH p = SHORTEST 1 ({n: 'a'}) (()-[:NEXT]-(y:Detour|End))+ ({n: 'c'}) RETURN [v IN y | v.n]`,
      ),
    ).toEqual([])
    expect(
      await rows(
        `MATCH SHORTEST 1 ({n: 'a'}) (()-[:NEXT]-(y WHERE NOT y:Stop OR y.n = 'c'))+ ({n: 'c'}) RETURN [v IN y | v.n]`,
      ),
    ).toEqual([[['x', 'c']]])
  })

  it('refuse a group variable already bound, and groups of several hops', async () => {
    expect(await code(`MATCH (x) MATCH (x) ((x)-[:NEXT]->(y))+ (z) RETURN z`)).toBe('VARIABLE_ALREADY_BOUND')
    expect(await code(`MATCH (a) ((x)-[:NEXT]->(y)-[:NEXT]->(w))+ (z) RETURN z`)).toBe(
      'UNSUPPORTED_CYPHER_FEATURE',
    )
  })
})
