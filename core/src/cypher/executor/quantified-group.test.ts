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

  it('refuse a group variable already bound', async () => {
    expect(await code(`MATCH (x) MATCH (x) ((x)-[:NEXT]->(y))+ (z) RETURN z`)).toBe('VARIABLE_ALREADY_BOUND')
    expect(await code(`MATCH (x) MATCH (a) ((x)-[:NEXT]->(y)-[:NEXT]->(w))+ (z) RETURN z`)).toBe(
      'VARIABLE_ALREADY_BOUND',
    )
  })
})

describe('quantified path groups of several hops', () => {
  // a -R-> b -T-> c -R-> d -T-> e, weights 1 to 4.
  beforeEach(async () => {
    engine = new CypherEngine(new GraphCatalog())
    await rows(`CREATE (:S {n: 'a'})-[:R {w: 1}]->(:M {n: 'b'})-[:T {w: 2}]->(:S {n: 'c'})-[:R {w: 3}]->(:M {n: 'd'})
      -[:T {w: 4}]->(:S {n: 'e'})`)
  })

  it('repeat their chain from where the last repetition ended, binding each variable to a list', async () => {
    expect(
      await rows(`MATCH ({n: 'a'}) ((p:S)-[r:R]->(q:M)-[:T]->(u)){1,3} (y)
        RETURN y.n, [v IN p | v.n], [v IN q | v.n], [v IN u | v.n], [e IN r | e.w] ORDER BY y.n`),
    ).toEqual([
      ['c', ['a'], ['b'], ['c'], [1]],
      ['e', ['a', 'c'], ['b', 'd'], ['c', 'e'], [1, 3]],
    ])
    // Zero repetitions leave the lists empty; the path holds every relationship met.
    expect(
      await rows(`MATCH path = ({n: 'a'}) ((p)-[:R]->()-[:T]->()){0,2} (y)
        RETURN y.n, size(p), [v IN nodes(path) | v.n] ORDER BY y.n`),
    ).toEqual([
      ['a', 0, ['a']],
      ['c', 1, ['a', 'b', 'c']],
      ['e', 2, ['a', 'b', 'c', 'd', 'e']],
    ])
  })

  it('check their WHERE per repetition, and give lists in pattern order when walked from the right', async () => {
    expect(
      await rows(`MATCH ({n: 'a'}) ((p)-[r:R]->(q)-[t:T]->(u) WHERE r.w + t.w > 3)+ (y) RETURN y.n`),
    ).toEqual([])
    expect(
      await rows(
        `MATCH ({n: 'c'}) ((p)-[r:R]->(q)-[t:T]->(u) WHERE r.w + t.w > 3)+ (y) RETURN y.n, [v IN q | v.n]`,
      ),
    ).toEqual([['e', ['d']]])
    expect(
      await rows(
        `MATCH (x) ((p)<-[:T]-(q)<-[:R]-(u)){2} (y {n: 'a'}) RETURN x.n, [v IN p | v.n], [v IN u | v.n]`,
      ),
    ).toEqual([['e', ['e', 'c'], ['c', 'a']]])
  })

  it('may open or close a path, whose outer node there is anonymous', async () => {
    expect(
      await rows(`MATCH ((x)-[:R]->(y)-[:T]->(z))+ RETURN [v IN x | v.n] ORDER BY size(x), x[0].n`),
    ).toEqual([[['a']], [['c']], [['a', 'c']]])
    expect(await rows(`MATCH ({n: 'c'}) ((x)-[]->(y)){2} RETURN [v IN y | v.n]`)).toEqual([[['d', 'e']]])
  })

  it('are refused under SHORTEST, and nest no quantifier', async () => {
    expect(await code(`MATCH SHORTEST 1 (a) ((x)-[:R]->(y)-[:T]->(z))+ (b) RETURN b`)).toBe(
      'UNSUPPORTED_CYPHER_FEATURE',
    )
    expect(await code(`MATCH (a) ((x)-[:R]->+(y)-[:T]->(z))+ (b) RETURN b`)).toBe('CYPHER_SYNTAX_ERROR')
  })
})
