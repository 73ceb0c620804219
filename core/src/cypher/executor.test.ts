import { beforeEach, describe, expect, it } from 'vitest'
import { GraphCatalog } from '../graph/catalog.js'
import { CypherEngine, type CypherResult } from './engine.js'

let engine: CypherEngine

async function rows(query: string, params?: Record<string, unknown>): Promise<unknown[][]> {
  const result = await engine.run({ query, mode: 'auto', ...(params ? { params } : {}) })
  if (result.status !== 'Success')
    throw new Error(`${result.status}: ${JSON.stringify(result.validation_errors)}`)
  return result.data?.rows ?? []
}
async function run(query: string, params?: Record<string, unknown>): Promise<CypherResult> {
  return engine.run({ query, mode: 'auto', ...(params ? { params } : {}) })
}

beforeEach(async () => {
  engine = new CypherEngine(new GraphCatalog())
  await run(`CREATE (a:Person {name: 'Ann', age: 30}), (b:Person {name: 'Bob', age: 25}), (c:Person:Admin {name: 'Cy', age: 40}),
    (a)-[:KNOWS {since: 2010}]->(b), (b)-[:KNOWS {since: 2015}]->(c), (a)-[:LIKES]->(c), (c)-[:KNOWS]->(c)`)
})

describe('MATCH', () => {
  it('matches labels, properties, directions and type alternatives', async () => {
    expect(await rows("MATCH (n:Person {name: 'Bob'}) RETURN n.age")).toEqual([[25]])
    expect(await rows('MATCH (n:Admin) RETURN n.name')).toEqual([['Cy']])
    expect(await rows("MATCH (:Person {name: 'Bob'})<-[:KNOWS]-(x) RETURN x.name")).toEqual([['Ann']])
    expect(
      await rows("MATCH (:Person {name: 'Ann'})-[:KNOWS|LIKES]->(x) RETURN x.name ORDER BY x.name"),
    ).toEqual([['Bob'], ['Cy']])
    expect(await rows("MATCH (:Person {name: 'Bob'})-[r]-(x) RETURN x.name ORDER BY x.name")).toEqual([
      ['Ann'],
      ['Cy'],
    ])
  })

  it("expands a node's relationships newest first, outgoing and incoming interleaved", async () => {
    expect(await rows("MATCH ({name: 'Ann'})-->(x) RETURN collect(x.name)")).toEqual([[['Cy', 'Bob']]])
    // Bob: KNOWS from Ann (older), KNOWS to Cy (newer).
    expect(await rows("MATCH ({name: 'Bob'})-[r]-(x) RETURN collect(x.name)")).toEqual([[['Cy', 'Ann']]])
    // Cy's self-loop is the newest: seen once, first.
    expect(await rows("MATCH ({name: 'Cy'})-[r]-(x) RETURN collect(x.name)")).toEqual([
      [['Cy', 'Ann', 'Bob']],
    ])
  })

  it('iterates a single value as a list of itself in list predicates, comprehensions and reduce', async () => {
    expect(
      await rows(
        "MATCH (n:Person) WHERE any(x IN n.name WHERE x = 'Bob') RETURN n.name, [x IN n.age | x + 1], reduce(s = 0, x IN n.age | s + x)",
      ),
    ).toEqual([['Bob', [26], 25]])
    expect(await rows('RETURN [x IN null | x], any(x IN null WHERE true)')).toEqual([[null, null]])
    // A literal that is no list is refused when compiling, as Neo4j does.
    for (const query of [
      "RETURN [x IN 'abc' | x]",
      'RETURN any(x IN 1 WHERE true)',
      'RETURN reduce(s = 0, x IN {a: 1} | s)',
    ])
      expect((await run(query)).validation_errors[0]?.code).toBe('INVALID_ARGUMENT_TYPE')
  })

  it('SETs and REMOVEs properties by a key computed per row', async () => {
    await run("MATCH (n {name: 'Bob'}) FOREACH (k IN ['x', 'y'] | SET n[k + 'Key'] = k)")
    expect(await rows("MATCH (n {name: 'Bob'}) RETURN n.xKey, n.yKey")).toEqual([['x', 'y']])
    await run(
      "MATCH (n {name: 'Bob'}) WITH n, [k IN keys(n) WHERE k ENDS WITH 'Key'] AS ks FOREACH (k IN ks | REMOVE n[k])",
    )
    expect(await rows("MATCH (n {name: 'Bob'}) RETURN keys(n) ORDER BY 1")).toEqual([[['name', 'age']]])
    expect((await run("MATCH (n {name: 'Bob'}) SET n[1] = 2")).validation_errors[0]?.message).toMatch(
      /key must be a string/,
    )
  })

  it('returns a self-loop once for an undirected pattern', async () => {
    expect(await rows("MATCH (c {name: 'Cy'})-[r:KNOWS]-(c) RETURN count(r)")).toEqual([[1]])
  })

  it('matches multiple patterns, cartesian products and relationship uniqueness', async () => {
    expect(await rows('MATCH (a:Person), (b:Admin) RETURN count(*)')).toEqual([[3]])
    expect(await rows('MATCH (a)-[r1]->(b)-[r2]->(c) WHERE r1 = r2 RETURN count(*)')).toEqual([[0]])
  })

  it('expands bounded variable-length relationships and builds paths', async () => {
    expect(
      await rows("MATCH (:Person {name: 'Ann'})-[:KNOWS*1..2]->(x) RETURN x.name ORDER BY x.name"),
    ).toEqual([['Bob'], ['Cy']])
    expect(
      await rows(
        "MATCH p = (:Person {name: 'Ann'})-[:KNOWS*2]->(x) RETURN length(p), [n IN nodes(p) | n.name]",
      ),
    ).toEqual([[2, ['Ann', 'Bob', 'Cy']]])
    expect(await rows("MATCH (x)<-[rs:KNOWS*2]-(:Person {name: 'Ann'}) RETURN [r IN rs | r.since]")).toEqual([
      [[2015, 2010]],
    ])
    const path = (await rows("MATCH p = (:Person {name: 'Ann'})-[:LIKES]->() RETURN p"))[0]?.[0] as {
      nodes: { id: string }[]
      relationships: { type: string; start: string }[]
    }
    expect(path.nodes).toHaveLength(2)
    expect(path.relationships[0]).toMatchObject({ type: 'LIKES', start: path.nodes[0]?.id })
  })

  it('fills OPTIONAL MATCH misses with null', async () => {
    expect(
      await rows('MATCH (n:Person) OPTIONAL MATCH (n)-[:LIKES]->(m) RETURN n.name, m.name ORDER BY n.name'),
    ).toEqual([
      ['Ann', 'Cy'],
      ['Bob', null],
      ['Cy', null],
    ])
  })

  it('supports pattern predicates and WHERE on relationships', async () => {
    expect(await rows('MATCH (n:Person) WHERE (n)-[:LIKES]->() RETURN n.name')).toEqual([['Ann']])
    expect(await rows('MATCH ()-[r:KNOWS]->() WHERE r.since > 2012 RETURN r.since')).toEqual([[2015]])
  })
})

describe('WITH, UNWIND, RETURN', () => {
  it('projects, filters, orders, skips and limits', async () => {
    expect(
      await rows(
        'MATCH (n:Person) WITH n.name AS name, n.age AS age WHERE age > 26 RETURN name ORDER BY age DESC',
      ),
    ).toEqual([['Cy'], ['Ann']])
    expect(await rows('MATCH (n:Person) RETURN n.name ORDER BY n.age SKIP 1 LIMIT 1')).toEqual([['Ann']])
    expect(await rows('UNWIND [3, 1, 2] AS x WITH x ORDER BY x LIMIT 2 RETURN collect(x)')).toEqual([
      [[1, 2]],
    ])
    expect(await rows('UNWIND [1, 1, 2] AS x RETURN DISTINCT x ORDER BY x')).toEqual([[1], [2]])
    expect(await rows('UNWIND [] AS x RETURN x')).toEqual([])
    expect(await rows('UNWIND null AS x RETURN x')).toEqual([])
  })

  it('returns * with columns sorted by name', async () => {
    const result = await run('UNWIND [1] AS b WITH b, 2 AS a RETURN *')
    expect(result.data).toEqual({ columns: ['a', 'b'], rows: [[2, 1]] })
  })

  it('groups by the non-aggregate items', async () => {
    expect(
      await rows(
        'MATCH (n:Person)-[:KNOWS]->(m) RETURN n.name AS name, count(*) AS c, collect(m.name) AS ms ORDER BY name',
      ),
    ).toEqual([
      ['Ann', 1, ['Bob']],
      ['Bob', 1, ['Cy']],
      ['Cy', 1, ['Cy']],
    ])
    expect(
      await rows(
        'MATCH (n:Person) RETURN sum(n.age), avg(n.age), min(n.age), max(n.name), count(DISTINCT n.age > 26)',
      ),
    ).toEqual([[95, 95 / 3, 25, 'Cy', 2]])
    expect(await rows('MATCH (n:Nothing) RETURN count(n), sum(n.x), collect(n), avg(n.x)')).toEqual([
      [0, 0, [], null],
    ])
    expect(await rows('MATCH (n:Nothing) RETURN n.x, count(*)')).toEqual([])
  })

  it('evaluates CASE, comprehensions, maps and string functions', async () => {
    expect(
      await rows(
        "MATCH (n:Person) RETURN CASE n.age WHEN 30 THEN 'thirty' ELSE 'other' END AS a, CASE WHEN n.age > 35 THEN 'old' END AS b ORDER BY n.name",
      ),
    ).toEqual([
      ['thirty', null],
      ['other', null],
      ['other', 'old'],
    ])
    expect(
      await rows(
        'RETURN [x IN range(1, 5) WHERE x % 2 = 1 | x * 10], {a: 1, b: [true]}.b, reduce(s = 0, x IN [1,2,3] | s + x)',
      ),
    ).toEqual([[[10, 30, 50], [true], 6]])
    expect(
      await rows(
        "RETURN toUpper('ab'), substring('hello', 1, 3), split('a,b', ','), replace('aXa', 'X', '-'), trim('  x '), left('abc', 2), reverse('ab')",
      ),
    ).toEqual([['AB', 'ell', ['a', 'b'], 'a-a', 'x', 'ab', 'ba']])
    expect(
      await rows(
        "RETURN 'abc' =~ 'a.c', 'abc' STARTS WITH 'ab', 'abc' CONTAINS 'z', [1,2,3][-1], [1,2,3][0..2]",
      ),
    ).toEqual([[true, true, false, 3, [1, 2]]])
  })

  it('unions with and without duplicates', async () => {
    expect(await rows('RETURN 1 AS x UNION RETURN 1 AS x')).toEqual([[1]])
    expect(await rows('RETURN 1 AS x UNION ALL RETURN 1 AS x')).toEqual([[1], [1]])
  })
})

describe('writes', () => {
  it('CREATE binds new elements and counts them', async () => {
    const result = await run(
      "MATCH (a:Person {name: 'Ann'}) CREATE (a)-[r:OWNS {n: 1}]->(d:Dog {name: 'Rex'}) RETURN type(r), d.name",
    )
    expect(result.data?.rows).toEqual([['OWNS', 'Rex']])
    expect(result.mutation_summary).toMatchObject({
      created_nodes: 1,
      created_relationships: 1,
      properties_set: 2,
      labels_added: 1,
    })
  })

  it('MERGE matches or creates, with ON CREATE / ON MATCH', async () => {
    const first = await run(
      "MERGE (p:Person {name: 'Dee'}) ON CREATE SET p.created = true ON MATCH SET p.matched = true RETURN p.created, p.matched",
    )
    expect(first.data?.rows).toEqual([[true, null]])
    const second = await run(
      "MERGE (p:Person {name: 'Dee'}) ON CREATE SET p.created = false ON MATCH SET p.matched = true RETURN p.created, p.matched",
    )
    expect(second.data?.rows).toEqual([[true, true]])
    expect(second.mutation_summary.created_nodes).toBe(0)
    expect(await rows("UNWIND ['x', 'x', 'y'] AS k MERGE (t:Tag {k: k}) RETURN count(DISTINCT t)")).toEqual([
      [2],
    ])
    expect(
      await rows("MATCH (a {name: 'Ann'}), (b {name: 'Bob'}) MERGE (a)-[r:KNOWS]->(b) RETURN r.since"),
    ).toEqual([[2010]])
  })

  it('SET and REMOVE properties and labels', async () => {
    await run("MATCH (n {name: 'Bob'}) SET n.age = n.age + 1, n:Admin, n += {city: 'Oslo', age: null}")
    expect(await rows("MATCH (n {name: 'Bob'}) RETURN n.age, labels(n), n.city")).toEqual([
      [null, ['Person', 'Admin'], 'Oslo'],
    ])
    await run("MATCH (n {name: 'Bob'}) SET n = {name: 'Bob', x: [1, 2]}")
    expect(await rows("MATCH (n {name: 'Bob'}) RETURN properties(n)")).toEqual([[{ name: 'Bob', x: [1, 2] }]])
    await run("MATCH (n {name: 'Bob'}) REMOVE n.x, n:Admin")
    expect(await rows("MATCH (n {name: 'Bob'}) RETURN keys(n), labels(n)")).toEqual([[['name'], ['Person']]])
    expect((await run("MATCH (n {name: 'Bob'}) SET n.bad = {a: 1}")).validation_errors[0]?.code).toBe(
      'INVALID_PROPERTY_TYPE',
    )
  })

  it('DELETE refuses connected nodes; DETACH DELETE removes their relationships', async () => {
    const refused = await run("MATCH (n {name: 'Bob'}) DELETE n")
    expect(refused.status).toBe('Rejected')
    expect(refused.validation_errors[0]?.code).toBe('DELETE_CONNECTED_NODE')
    const deleted = await run("MATCH (n {name: 'Bob'}) DETACH DELETE n")
    expect(deleted.mutation_summary).toMatchObject({ deleted_nodes: 1, deleted_relationships: 2 })
    expect(await rows('MATCH (n) RETURN count(n)')).toEqual([[2]])
    expect(await rows("MATCH (n {name: 'Ann'})-[r]->() DELETE r RETURN count(*)")).toEqual([[1]])
  })

  it('sees its own writes in later clauses but not in the clause that writes', async () => {
    expect(
      await rows('MATCH (n:Person) CREATE (:Person) WITH count(*) AS c MATCH (m:Person) RETURN c, count(m)'),
    ).toEqual([[3, 6]])
  })
})
