import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../graph/catalog.js'
import type { Clause } from './ast.js'
import { needsEager } from './eagerness.js'
import { CypherEngine } from './engine.js'
import { parseQuery } from './parser.js'

/** Where a write query collects its rows: the clause indexes after which needsEager says so. */
function eagerAfter(query: string): number[] {
  const clauses = parseQuery(query, { maxExpressionDepth: 256 }).parts[0]?.clauses as Clause[]
  const bound = new Set<string>()
  const out: number[] = []
  clauses.forEach((clause, index) => {
    // what each clause binds, roughly as the planner's scope has it (enough for these queries)
    if (clause.kind === 'match' || clause.kind === 'create')
      for (const part of clause.pattern)
        for (const node of part.nodes) if (node.variable) bound.add(node.variable)
    if (clause.kind === 'unwind') bound.add(clause.variable)
    if (needsEager(clauses, index, (name) => bound.has(name))) out.push(index)
  })
  return out
}

describe('where a write query collects its rows (eagerness)', () => {
  it('leaves it out between reads and before relationships created between nodes found by label', () => {
    expect(eagerAfter('MATCH (a:A {id: 1}), (b:B {id: 2}) CREATE (a)-[:R]->(b)')).toEqual([])
    expect(eagerAfter('MATCH (a:A) MATCH (b:B) WITH a, b CREATE (a)-[:R {w: 1}]->(b)')).toEqual([])
    expect(
      eagerAfter('UNWIND $rows AS r MATCH (a:A {id: r.a}) MERGE (a)-[s:R]->(a) ON CREATE SET s.n = 1'),
    ).toEqual([])
  })

  it('keeps it wherever an update could change what a read before it still streams, or after an update', () => {
    // a scan of every node, a relationship read, a pattern or subquery in a filter, a new node, a node changed
    expect(eagerAfter('MATCH (a), (b) CREATE (a)-[:R]->(b)')).toEqual([0])
    expect(eagerAfter('MATCH (a:A)-[:R]->(b:B) CREATE (a)-[:R]->(b)')).toEqual([0])
    expect(eagerAfter('MATCH (a:A) WHERE NOT (a)-->() CREATE (a)-[:R]->(a)')).toEqual([0])
    expect(eagerAfter('MATCH (a:A) WHERE COUNT { ()-[:R]->() } = 0 CREATE (a)-[:R]->(a)')).toEqual([0])
    expect(eagerAfter('MATCH (a:A) CREATE (a)-[:R]->(:A)')).toEqual([0])
    expect(eagerAfter('MATCH (a:A), (b:B) CREATE (a)-[:R]->(b:B)')).toEqual([0])
    expect(eagerAfter('MATCH (a:A) MERGE (a)-[:R]->(a) ON CREATE SET a.seen = true')).toEqual([0])
    expect(eagerAfter('MATCH (a:A) SET a.n = 1')).toEqual([0])
    expect(eagerAfter('UNWIND [1, 2] AS x CREATE (a:Q) WITH a MATCH (b:Q) RETURN count(*)')).toEqual([0, 1])
  })
})

describe('write queries with and without collected rows', () => {
  async function engineWith(setup: string) {
    const engine = new CypherEngine(new GraphCatalog())
    await engine.run({ query: setup, mode: 'write' })
    return engine
  }
  const value = async (engine: CypherEngine, query: string) => {
    const result = await engine.run({ query, mode: 'write' })
    expect(result.status).toBe('Success')
    return result.data?.rows[0]?.[0]
  }

  it('creates each relationship once when the reads stream into the create', async () => {
    const engine = await engineWith('UNWIND range(1, 3) AS i CREATE (:P {i: i})')
    await value(engine, 'MATCH (a:P), (b:P) CREATE (a)-[:R]->(b)')
    expect(await value(engine, 'MATCH ()-[r:R]->() RETURN count(r)')).toBe(9)
    await value(engine, 'MATCH (a:P) MATCH (b:P) MERGE (a)-[:S]->(b)')
    await value(engine, 'MATCH (a:P) MATCH (b:P) MERGE (a)-[:S]->(b)')
    expect(await value(engine, 'MATCH ()-[s:S]->() RETURN count(s)')).toBe(9)
  })

  it('gives the answers of a query whose clauses each finish first where they could differ', async () => {
    const engine = await engineWith('UNWIND range(1, 3) AS i CREATE (:P {i: i})')
    // a scan of all nodes (a transaction lists a node it added a relationship to among its own)
    await value(engine, 'MATCH (a), (b) CREATE (a)-[:T]->(b)')
    expect(await value(engine, 'MATCH ()-[t:T]->() RETURN count(t)')).toBe(9)
    // a subquery in the filter reads what the create changes: every node sees none before any is made
    await value(engine, 'MATCH (a:P) WHERE COUNT { ()-[:U]->() } = 0 CREATE (a)-[:U]->(a)')
    expect(await value(engine, 'MATCH ()-[u:U]->() RETURN count(u)')).toBe(3)
    // new nodes of the label being read, and reads after an update
    await value(engine, 'MATCH (a:P) CREATE (a)-[:V]->(:P)')
    expect(await value(engine, 'MATCH (p:P) RETURN count(p)')).toBe(6)
    expect(await value(engine, 'UNWIND [1, 2] AS x CREATE (a:Q) WITH a MATCH (b:Q) RETURN count(*)')).toBe(4)
  })
})
