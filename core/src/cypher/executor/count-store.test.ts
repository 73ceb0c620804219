import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { openEngine } from '../../runtime/open-engine.js'
import { CypherEngine } from '../engine.js'
import { planQuery } from '../planner.js'

/** The graph written by a default engine, read by one whose loaded-row budget is far below its size. */
const engineWith = async (setup: string) => {
  const catalog = new GraphCatalog()
  const created = await new CypherEngine(catalog).run({ query: setup, mode: 'write' })
  expect(created.status).toBe('Success')
  return new CypherEngine(catalog, { budgets: { maxLoadedRecords: 5 } })
}
const rows = async (engine: CypherEngine, query: string) => {
  const result = await engine.run({ query, mode: 'read' })
  expect(result.validation_errors).toEqual([])
  return { columns: result.data?.columns, rows: result.data?.rows }
}
const plan = (query: string): string[] =>
  planQuery(query, { maxExpressionDepth: 256, maxVariableLengthHops: 15, collectErrors: false }).plan
    ?.explain ?? []

const SETUP =
  'UNWIND range(1, 40) AS i CREATE (a:Indicator {i: i})-[:INDICATES]->(m:Malware {i: i}) WITH a WHERE i % 2 = 0 SET a:Shared'

describe('counts from the count store', () => {
  it('counts a label, all nodes and all relationships past the loaded-row budget', async () => {
    const engine = await engineWith(SETUP)
    expect(await rows(engine, 'MATCH (n:Indicator) RETURN count(n)')).toEqual({
      columns: ['count(n)'],
      rows: [[40]],
    })
    expect((await rows(engine, 'MATCH (n) RETURN count(*) AS all, count(n) AS same')).rows).toEqual([
      [80, 80],
    ])
    expect((await rows(engine, 'MATCH ()-[r]->() RETURN count(r) AS rels')).rows).toEqual([[40]])
    expect((await rows(engine, 'MATCH (n:Shared) RETURN count(DISTINCT n) AS c')).rows).toEqual([[20]])
    expect((await rows(engine, 'MATCH (n:Nothing) RETURN count(n) AS c')).rows).toEqual([[0]])
    expect(
      (await rows(engine, 'MATCH (n:Indicator) WITH count(n) AS c WHERE c > 1 RETURN c * 2 AS d')).rows,
    ).toEqual([[80]])
    expect(plan('MATCH (n:Indicator) RETURN count(n)')).toContain('NodeCountFromCountStore')
    expect(plan('MATCH ()-[r]->() RETURN count(r)')).toContain('RelationshipCountFromCountStore')
    // A relationship type's count comes from its counter too, and stays right past deletes.
    expect((await rows(engine, 'MATCH ()-[r:INDICATES]->() RETURN count(r) AS c')).rows).toEqual([[40]])
    expect((await rows(engine, 'MATCH ()-[r:NOTHING]->() RETURN count(*) AS c')).rows).toEqual([[0]])
    expect(plan('MATCH ()-[:INDICATES]->() RETURN count(*)')).toContain('RelationshipCountFromCountStore')
  })

  it('leaves shapes the counters cannot answer to the general path, with the same answers', async () => {
    const engine = await engineWith(SETUP)
    // Undirected hops match each relationship twice; labelled ends or a filter need the records.
    expect((await rows(engine, 'MATCH ()-[r]-() RETURN count(r) AS c')).rows).toEqual([[80]])
    expect((await rows(engine, 'MATCH (:Indicator)-[r:INDICATES]->() RETURN count(r) AS c')).rows).toEqual([
      [40],
    ])
    expect((await rows(engine, 'MATCH (n:Indicator) WHERE n.i > 30 RETURN count(n) AS c')).rows).toEqual([
      [10],
    ])
    expect((await rows(engine, 'MATCH (n:Indicator) RETURN count(n.i) AS c')).rows).toEqual([[40]])
    expect(plan('MATCH ()-[r]-() RETURN count(r)')).not.toContain('CountStore')
  })

  it('inside a transaction counts what the transaction sees, its own deletes included', async () => {
    const engine = await openEngine()
    try {
      await engine.cypher({ workspaceId: 'w', query: SETUP, mode: 'write' })
      const tx = engine.beginTransaction({ workspaceId: 'w', mode: 'write', idleTimeoutMs: 5000 })
      await tx.run({ query: 'MATCH (n:Indicator) WHERE n.i <= 5 DETACH DELETE n' })
      await tx.run({ query: 'CREATE (:Indicator {i: 0})' })
      expect((await tx.run({ query: 'MATCH (n:Indicator) RETURN count(n) AS c' })).data?.rows).toEqual([[36]])
      expect((await tx.run({ query: 'MATCH ()-[r]->() RETURN count(r) AS c' })).data?.rows).toEqual([[35]])
      expect((await tx.run({ query: 'MATCH ()-[r:INDICATES]->() RETURN count(r) AS c' })).data?.rows).toEqual(
        [[35]],
      )
      await tx.rollback()
      await engine.cypher({
        workspaceId: 'w',
        query: 'MATCH ()-[r:INDICATES]->() WITH r LIMIT 3 DELETE r',
        mode: 'write',
      })
      const typed = await engine.cypher({
        workspaceId: 'w',
        query: 'MATCH ()-[r:INDICATES]->() RETURN count(r) AS c',
        mode: 'read',
      })
      expect(typed.data?.rows).toEqual([[37]])
      const after = await engine.cypher({
        workspaceId: 'w',
        query: 'MATCH (n:Indicator) RETURN count(n) AS c',
        mode: 'read',
      })
      expect(after.data?.rows).toEqual([[40]])
    } finally {
      await engine.close()
    }
  })
})
