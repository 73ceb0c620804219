import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../graph/catalog.js'
import { CypherEngine } from './engine.js'
import type { CypherBudgets } from './executor/context.js'

// Subqueries, paths, label expressions, FOREACH, prefixes and type predicates (issue 35, items 2–6).

const SEED = `CREATE (a:Person {name: 'A', age: 30})-[:KNOWS {since: 2020}]->(b:Person {name: 'B'}),
  (b)-[:KNOWS]->(c:Person:Admin {name: 'C'}), (c)-[:LIKES]->(m:Movie {title: 'M'}), (a)-[:LIKES]->(m)`

async function seeded(budgets?: Partial<CypherBudgets>) {
  const engine = new CypherEngine(new GraphCatalog(), budgets ? { budgets } : {})
  await engine.run({ query: SEED, mode: 'write' })
  return engine
}

async function rows(engine: CypherEngine, query: string) {
  const result = await engine.run({ query, mode: 'auto' })
  if (result.status !== 'Success')
    throw new Error(`${result.validation_errors[0]?.code}: ${result.validation_errors[0]?.message}`)
  return result.data?.rows
}

async function code(engine: CypherEngine, query: string) {
  const result = await engine.run({ query, mode: 'auto' })
  return result.validation_errors[0]?.code
}

describe('extended simple CASE', () => {
  it('takes several values, comparisons and type or null tests per WHEN', async () => {
    const engine = await seeded()
    expect(
      await rows(
        engine,
        `UNWIND ['red', 'green', 'teal', null] AS c
         RETURN CASE c WHEN 'red' THEN 'warm' WHEN 'green', 'teal' THEN 'cool' ELSE 'none' END`,
      ),
    ).toEqual([['warm'], ['cool'], ['cool'], ['none']])
    expect(
      await rows(
        engine,
        `UNWIND [null, 'x', 2, 0, 40, 7.5] AS v
         RETURN CASE v WHEN IS NULL, IS NOT TYPED INTEGER | FLOAT THEN 'odd' WHEN = 0 THEN 'zero'
           WHEN >= 10 THEN 'big' WHEN STARTS WITH 'x' THEN 'never' ELSE 'small' END`,
      ),
    ).toEqual([['odd'], ['odd'], ['small'], ['zero'], ['big'], ['small']])
  })
})

describe('UNION DISTINCT', () => {
  it('is the plain UNION spelled out', async () => {
    const engine = await seeded()
    expect(
      await rows(engine, 'RETURN 1 AS x UNION DISTINCT RETURN 1 AS x UNION DISTINCT RETURN 2 AS x'),
    ).toEqual([[1], [2]])
    expect(await code(engine, 'RETURN 1 AS x UNION DISTINCT ALL RETURN 1 AS x')).toBe('CYPHER_SYNTAX_ERROR')
  })
})

describe('subqueries', () => {
  it('keeps the outer variables visible through a WITH inside EXISTS, COUNT and COLLECT', async () => {
    const engine = await seeded()
    expect(
      await rows(
        engine,
        `MATCH (p:Person) WHERE EXISTS { WITH 'M' AS title MATCH (p)-[:LIKES]->(m) WHERE m.title = title }
         RETURN p.name ORDER BY p.name`,
      ),
    ).toEqual([['A'], ['C']])
    expect(
      await rows(
        engine,
        `MATCH (p:Person) RETURN p.name, COUNT { WITH 2020 AS year MATCH (p)-[k:KNOWS]->() WHERE k.since = year } AS n,
           COLLECT { WITH 1 AS one MATCH (p)-[:KNOWS]->(f) WITH f.name AS name RETURN name } AS friends
         ORDER BY p.name`,
      ),
    ).toEqual([
      ['A', 1, ['B']],
      ['B', 0, ['C']],
      ['C', 0, []],
    ])
  })

  it('EXISTS, COUNT and COLLECT see the outer variables', async () => {
    const engine = await seeded()
    expect(
      await rows(
        engine,
        `MATCH (p:Person) RETURN p.name, EXISTS { (p)-[:LIKES]->() } AS likes, COUNT { (p)-->() } AS out,
         COLLECT { MATCH (p)-[:KNOWS]->(x) RETURN x.name } AS knows ORDER BY p.name`,
      ),
    ).toEqual([
      ['A', true, 2, ['B']],
      ['B', false, 1, ['C']],
      ['C', true, 1, []],
    ])
    expect(
      await rows(engine, "MATCH (p) WHERE EXISTS { MATCH (p)-->(q) WHERE q.name = 'C' } RETURN p.name"),
    ).toEqual([['B']])
    expect(await code(engine, 'MATCH (p) WHERE EXISTS { CREATE (x) } RETURN p')).toBe(
      'INVALID_CLAUSE_COMPOSITION',
    )
    expect(await code(engine, 'RETURN COLLECT { MATCH (p) RETURN p.name, p.age } AS x')).toBe(
      'INVALID_CLAUSE_COMPOSITION',
    )
  })

  it('CALL { } imports with WITH, (x), (*); OPTIONAL CALL keeps rows; UNION inside', async () => {
    const engine = await seeded()
    expect(
      await rows(
        engine,
        'MATCH (p:Person) CALL (p) { MATCH (p)-->(x) RETURN count(x) AS c } RETURN p.name, c ORDER BY p.name',
      ),
    ).toEqual([
      ['A', 2],
      ['B', 1],
      ['C', 1],
    ])
    expect(
      await rows(
        engine,
        'MATCH (p:Person) CALL { WITH p MATCH (p)-[:LIKES]->(m) RETURN m.title AS t } RETURN p.name, t ORDER BY p.name',
      ),
    ).toEqual([
      ['A', 'M'],
      ['C', 'M'],
    ])
    expect(
      await rows(
        engine,
        'MATCH (p:Person) OPTIONAL CALL (*) { MATCH (p)-[:LIKES]->(m) RETURN m.title AS t } RETURN p.name, t ORDER BY p.name',
      ),
    ).toEqual([
      ['A', 'M'],
      ['B', null],
      ['C', 'M'],
    ])
    expect(
      await rows(
        engine,
        'CALL { MATCH (n:Person) RETURN n.name AS x UNION MATCH (m:Movie) RETURN m.title AS x } RETURN x ORDER BY x',
      ),
    ).toEqual([['A'], ['B'], ['C'], ['M']])
    expect(await code(engine, 'MATCH (p) CALL (q) { RETURN 1 AS one } RETURN p')).toBe('UNDEFINED_VARIABLE')
    expect(await code(engine, 'MATCH (p) CALL { MATCH (p) RETURN p } RETURN p')).toBe(
      'VARIABLE_ALREADY_BOUND',
    )
  })

  it('a unit subquery writes once per row and passes the row on', async () => {
    const engine = await seeded()
    await rows(engine, 'MATCH (p:Person) CALL (p) { CREATE (:Copy {of: p.name}) }')
    expect(await rows(engine, 'MATCH (c:Copy) RETURN count(c)')).toEqual([[3]])
  })

  it('IN TRANSACTIONS commits each batch on its own, through beforePublish', async () => {
    const commits: number[] = []
    const engine = new CypherEngine(new GraphCatalog(), {
      beforePublish: (commit) => {
        commits.push(commit.ops.length)
      },
    })
    const result = await engine.execute({
      query:
        'UNWIND range(1, 10) AS i CALL (i) { CREATE (:B {i: i}) } IN TRANSACTIONS OF 4 ROWS RETURN count(*) AS n',
      mode: 'write',
    })
    expect(result.result.data?.rows).toEqual([[10]])
    expect(result.result.mutation_summary.created_nodes).toBe(10)
    expect(commits).toHaveLength(3) // 4 + 4 + 2 rows
    expect(await rows(engine, 'MATCH (b:B) RETURN count(b)')).toEqual([[10]])
    const returning = await rows(
      engine,
      'UNWIND [1, 2, 3] AS i CALL (i) { CREATE (n:C {i: i}) RETURN n.i * 10 AS t } IN TRANSACTIONS RETURN collect(t) AS ts',
    )
    expect(returning).toEqual([[[10, 20, 30]]])
    // A failing batch fails the query; the batches before it stay.
    const failing = await engine.run({
      query: 'UNWIND [1, 2, 0, 4] AS i CALL (i) { CREATE (:D {v: 1 / i}) } IN TRANSACTIONS OF 2 ROWS',
      mode: 'write',
    })
    expect(failing.status).toBe('Rejected')
    expect(await rows(engine, 'MATCH (d:D) RETURN count(d)')).toEqual([[2]])
    expect(await code(engine, 'UNWIND [1] AS i CALL (i) { CREATE (:E) } IN TRANSACTIONS OF 0 ROWS')).toBe(
      'INVALID_ARGUMENT_VALUE',
    )
    expect(await code(engine, 'CREATE (:F) WITH 1 AS i CALL (i) { CREATE (:E) } IN TRANSACTIONS')).toBe(
      'INVALID_CLAUSE_COMPOSITION',
    )
    expect(await code(engine, 'CALL { CALL { CREATE (:E) } IN TRANSACTIONS } RETURN 1')).toBe(
      'INVALID_CLAUSE_COMPOSITION',
    )
  })

  it('IN [n] CONCURRENT TRANSACTIONS runs its batches one after the other (an order Neo4j allows)', async () => {
    const engine = new CypherEngine(new GraphCatalog())
    const query = (concurrency: string) =>
      `UNWIND range(1, 5) AS i CALL (i) { CREATE (:K {i: i}) } IN ${concurrency} CONCURRENT TRANSACTIONS OF 2 ROWS RETURN count(*) AS n`
    expect(await rows(engine, query('3'))).toEqual([[5]])
    expect(await rows(engine, query('-1'))).toEqual([[5]])
    expect(await rows(engine, query(''))).toEqual([[5]])
    expect(await rows(engine, 'MATCH (k:K) RETURN count(k)')).toEqual([[15]])
    expect(await code(engine, query("'x'"))).toBe('CYPHER_SYNTAX_ERROR')
  })

  it('ON ERROR CONTINUE rolls a failed batch back and goes on; its rows get null columns', async () => {
    const engine = new CypherEngine(new GraphCatalog())
    const run = (size: number) =>
      engine.execute({
        query: `UNWIND [1, 0, 2, 4] AS i CALL (i) { CREATE (n:P {v: 100 / i}) RETURN n.v AS v }
          IN TRANSACTIONS OF ${size} ROWS ON ERROR CONTINUE RETURN i, v`,
        mode: 'write',
      })
    const single = await run(1)
    expect(single.result.data?.rows).toEqual([
      [1, 100],
      [0, null],
      [2, 50],
      [4, 25],
    ])
    // Only the committed batches count.
    expect(single.result.mutation_summary.created_nodes).toBe(3)
    // In twos, the batch of 1 and 0 fails as a whole.
    expect((await run(2)).result.data?.rows).toEqual([
      [1, null],
      [0, null],
      [2, 50],
      [4, 25],
    ])
    expect(await rows(engine, 'MATCH (p:P) RETURN count(p)')).toEqual([[5]])
  })

  it('ON ERROR BREAK stops at the failed batch; REPORT STATUS gives each row its transaction status', async () => {
    const engine = new CypherEngine(new GraphCatalog())
    const result = await rows(
      engine,
      `UNWIND [1, 0, 2] AS i CALL (i) { CREATE (:Q {v: 100 / i}) } IN TRANSACTIONS OF 1 ROW
        ON ERROR BREAK REPORT STATUS AS s RETURN i, s.started, s.committed, s.errorMessage, s.transactionId IS NULL`,
    )
    expect(result).toEqual([
      [1, true, true, null, false],
      [0, true, false, '/ by zero', false],
      [2, false, false, null, true],
    ])
    expect(await rows(engine, 'MATCH (q:Q) RETURN count(q)')).toEqual([[1]])
    // REPORT STATUS needs CONTINUE or BREAK; each option comes once; the status variable must be new.
    const base = 'UNWIND [1] AS i CALL (i) { CREATE (:Q) } IN TRANSACTIONS'
    expect(await code(engine, `${base} REPORT STATUS AS s RETURN s`)).toBe('INVALID_CLAUSE_COMPOSITION')
    expect(await code(engine, `${base} ON ERROR FAIL REPORT STATUS AS s RETURN s`)).toBe(
      'INVALID_CLAUSE_COMPOSITION',
    )
    expect(await code(engine, `${base} ON ERROR CONTINUE ON ERROR BREAK`)).toBe('CYPHER_SYNTAX_ERROR')
    expect(await code(engine, `${base} ON ERROR CONTINUE REPORT STATUS AS i RETURN i`)).toBe(
      'VARIABLE_ALREADY_BOUND',
    )
    // Options in any order.
    expect(
      await rows(engine, `${base} REPORT STATUS AS s ON ERROR CONTINUE OF 1 ROW RETURN s.committed`),
    ).toEqual([[true]])
    // A budget refusal is the query's, not the batch's: it is not absorbed.
    const small = new CypherEngine(new GraphCatalog(), { budgets: { maxMutations: 2 } })
    const many =
      'UNWIND [1] AS i CALL (i) { UNWIND range(1, 5) AS k CREATE (:Q) } IN TRANSACTIONS ON ERROR CONTINUE'
    expect(await code(small, many)).toBe('QUERY_BUDGET_EXCEEDED')
  })
})

describe('NODETACH DELETE', () => {
  it('is DELETE: a node with relationships is refused, a lone one deleted', async () => {
    const engine = await seeded()
    expect(await code(engine, "MATCH (n {name: 'A'}) NODETACH DELETE n")).toBe('DELETE_CONNECTED_NODE')
    await engine.run({ query: 'CREATE (:Lone)', mode: 'write' })
    expect(await rows(engine, 'MATCH (n:Lone) NODETACH DELETE n RETURN count(*)')).toEqual([[1]])
    expect(await rows(engine, 'MATCH (n:Lone) RETURN count(n)')).toEqual([[0]])
  })
})

describe('FINISH', () => {
  it('ends a query without a result, its side effects done', async () => {
    const engine = await seeded()
    const read = await engine.run({ query: 'MATCH (n:Person) FINISH', mode: 'auto' })
    expect([read.status, read.data?.columns, read.data?.rows]).toEqual(['Success', [], []])
    const write = await engine.run({
      query: "MATCH (n:Person {name: 'A'}) SET n.seen = true FINISH",
      mode: 'auto',
    })
    expect(write.mutation_summary.properties_set).toBe(1)
    expect(write.data?.rows).toEqual([])
    expect(await rows(engine, "MATCH (n {name: 'A'}) RETURN n.seen")).toEqual([[true]])
    expect(await code(engine, 'MATCH (n) FINISH RETURN n')).toBe('INVALID_CLAUSE_COMPOSITION')
  })
})

describe('shortest paths', () => {
  it('ANY SHORTEST is SHORTEST 1', async () => {
    const engine = await seeded()
    expect(
      await rows(engine, "MATCH p = ANY SHORTEST ({name: 'A'})-[:KNOWS]->+({name: 'C'}) RETURN length(p)"),
    ).toEqual([[2]])
  })

  it("apply a parenthesised pattern's WHERE to each candidate before choosing the shortest", async () => {
    // s to t: directly (length 1), and through a then b (length 3).
    const engine = new CypherEngine(new GraphCatalog())
    await engine.run({
      query: `CREATE (s {n: 's'})-[:L]->(t {n: 't'}), (s)-[:L]->(:X {n: 'a'})-[:L]->(:X {n: 'b'})-[:L]->(t)`,
      mode: 'write',
    })
    // Outside the parentheses the WHERE filters the shortest path found (length 1): nothing is left.
    expect(
      await rows(
        engine,
        "MATCH p = SHORTEST 1 ({n: 's'})-[:L]->+({n: 't'}) WHERE length(p) > 1 RETURN length(p)",
      ),
    ).toEqual([])
    expect(
      await rows(
        engine,
        "MATCH SHORTEST 1 (p = ({n: 's'})-[:L]->+({n: 't'}) WHERE length(p) > 1) RETURN [v IN nodes(p) | v.n]",
      ),
    ).toEqual([[['s', 'a', 'b', 't']]])
    // Group variables are lists inside the WHERE too.
    expect(
      await rows(
        engine,
        "MATCH SHORTEST 1 (({n: 's'}) (()-[:L]->(y))+ ({n: 't'}) WHERE any(v IN y WHERE v:X)) RETURN [v IN y | v.n]",
      ),
    ).toEqual([[['a', 'b', 't']]])
    // Without a selector the parenthesised WHERE is an ordinary condition.
    expect(await rows(engine, "MATCH ((a {n: 's'})-[:L]->(b) WHERE b:X) RETURN b.n")).toEqual([['a']])
  })

  it('SHORTEST k GROUPS gives every path of each of the k shortest lengths', async () => {
    // From s to t: one path of length 1, two of length 2 (through a, through b), one of length 3.
    const engine = new CypherEngine(new GraphCatalog())
    await engine.run({
      query: `CREATE (s {n: 's'})-[:L]->(t {n: 't'}), (s)-[:L]->(a {n: 'a'})-[:L]->(t), (s)-[:L]->(b {n: 'b'})-[:L]->(t),
        (s)-[:L]->(c {n: 'c'})-[:L]->(d {n: 'd'})-[:L]->(t)`,
      mode: 'write',
    })
    const count = (selector: string) =>
      rows(
        engine,
        `MATCH p = ${selector} ({n: 's'})-[:L]->+({n: 't'}) RETURN length(p) AS l, count(*) AS n ORDER BY l`,
      )
    expect(await count('SHORTEST 2 GROUPS')).toEqual([
      [1, 1],
      [2, 2],
    ])
    expect(await count('SHORTEST 3 GROUPS')).toEqual([
      [1, 1],
      [2, 2],
      [3, 1],
    ])
    expect(await count('SHORTEST 1 GROUPS')).toEqual([[1, 1]])
    expect(await count('SHORTEST 9 GROUPS')).toEqual([
      [1, 1],
      [2, 2],
      [3, 1],
    ])
  })

  it('stop walking by length once no path is that long (each relationship once): an end without a cycle', async () => {
    // A ring of three and a tail: from the tail's end back to itself there is no trail; others answer.
    const engine = new CypherEngine(new GraphCatalog(), { budgets: { maxWarmAdjacencyEntries: 10_000 } })
    await engine.run({
      query: "CREATE (t {n: 't'})-[:L]->(a {n: 'a'})-[:L]->(b {n: 'b'})-[:L]->(c {n: 'c'})-[:L]->(a)",
      mode: 'write',
    })
    expect(
      await rows(engine, "MATCH p = SHORTEST 1 ({n: 't'})--+(x) RETURN x.n, length(p) ORDER BY x.n"),
    ).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 2],
    ])
  })

  it('shortestPath, allShortestPaths, SHORTEST k and ALL SHORTEST', async () => {
    const engine = await seeded()
    // Two paths of length 2 (through B, through the movie): one of them, with its ends in place.
    const any =
      "MATCH (a {name: 'A'}), (c {name: 'C'}) MATCH p = shortestPath((a)-[*]-(c)) RETURN length(p), nodes(p)[0].name, nodes(p)[2].name"
    expect(await rows(engine, any)).toEqual([[2, 'A', 'C']])
    const out =
      "MATCH (a {name: 'A'}), (c {name: 'C'}) MATCH p = shortestPath((a)-[:KNOWS*]->(c)) RETURN [n IN nodes(p) | n.name]"
    expect(await rows(engine, out)).toEqual([[['A', 'B', 'C']]])
    const back =
      "MATCH (a {name: 'C'}), (c {name: 'A'}) MATCH p = shortestPath((a)<-[:KNOWS*]-(c)) RETURN [n IN nodes(p) | n.name]"
    expect(await rows(engine, back)).toEqual([[['C', 'B', 'A']]])
    expect(
      await rows(
        engine,
        "MATCH (a {name: 'B'}), (m:Movie) MATCH p = allShortestPaths((a)-[*]-(m)) RETURN length(p)",
      ),
    ).toEqual([[2], [2]])
    expect(await rows(engine, "MATCH p = SHORTEST 2 (a {name: 'A'})-[*]-(m:Movie) RETURN length(p)")).toEqual(
      [[1], [3]],
    )
    expect(
      await rows(engine, "MATCH p = ALL SHORTEST (a {name: 'A'})-[:KNOWS]->+(c:Admin) RETURN length(p)"),
    ).toEqual([[2]])
    expect(
      await rows(
        engine,
        "MATCH (a {name: 'C'}), (b {name: 'A'}) MATCH p = shortestPath((a)-[:KNOWS*]->(b)) RETURN p",
      ),
    ).toEqual([])
  })

  it('the search is bounded by the adjacency budget, never an enumeration of all paths', async () => {
    const engine = new CypherEngine(new GraphCatalog(), { budgets: { maxWarmAdjacencyEntries: 500 } })
    // A ladder of 60 rungs, each rung joined to both rails of the next: 2^58 paths end to end, all of length 59.
    await engine.run({
      query: 'UNWIND range(0, 59) AS i CREATE (:L {i: i, r: 0}), (:L {i: i, r: 1})',
      mode: 'write',
    })
    await engine.run({ query: 'MATCH (a:L), (b:L) WHERE b.i = a.i + 1 CREATE (a)-[:R]->(b)', mode: 'write' })
    const found = await rows(
      engine,
      'MATCH (a:L {i: 0, r: 0}), (b:L {i: 59, r: 0}) MATCH p = shortestPath((a)-[:R*]->(b)) RETURN length(p)',
    )
    expect(found).toEqual([[59]])
    // An enumeration of the paths would walk billions of entries; the breadth-first search reads each once.
    const tight = new CypherEngine(new GraphCatalog(), { budgets: { maxWarmAdjacencyEntries: 10 } })
    await tight.run({ query: 'UNWIND range(1, 20) AS i CREATE (:S {i: i})-[:R]->(:T)', mode: 'write' })
    await tight.run({ query: 'MATCH (s:S), (t:S) WHERE t.i = s.i + 1 CREATE (s)-[:R]->(t)', mode: 'write' })
    expect(
      await code(tight, 'MATCH (a:S {i: 1}), (b:S {i: 20}) MATCH p = shortestPath((a)-[*]->(b)) RETURN p'),
    ).toBe('QUERY_BUDGET_EXCEEDED')
  })
})

describe('label expressions and inline WHERE', () => {
  it('|, &, !, % on nodes; !, | on relationship types; WHERE inside patterns', async () => {
    const engine = await seeded()
    expect(await rows(engine, 'MATCH (n:Admin|Movie) RETURN count(n)')).toEqual([[2]])
    expect(await rows(engine, 'MATCH (n:Person&Admin) RETURN n.name')).toEqual([['C']])
    expect(await rows(engine, 'MATCH (n:!Person) RETURN count(n)')).toEqual([[1]])
    expect(await rows(engine, 'MATCH (n:%) RETURN count(n)')).toEqual([[4]])
    expect(await rows(engine, 'MATCH (n) WHERE n:Admin|Movie RETURN count(*)')).toEqual([[2]])
    expect(await rows(engine, 'MATCH ()-[r:!KNOWS]->() RETURN count(r)')).toEqual([[2]])
    expect(await rows(engine, 'MATCH (n:Person WHERE n.age > 1) RETURN n.name')).toEqual([['A']])
    expect(await rows(engine, 'MATCH (a)-[r WHERE r.since > 2000]->(b) RETURN b.name')).toEqual([['B']])
    expect(await rows(engine, 'MATCH (a)-[:KNOWS]->{2}(b) RETURN a.name, b.name')).toEqual([['A', 'C']])
    expect(
      await rows(engine, "MATCH (a {name: 'A'}) ((x)-[:KNOWS]->(y)){1,2} (b) RETURN b.name ORDER BY b.name"),
    ).toEqual([['B'], ['C']])
    // Inner-node labels hold at every hop: only C is an Admin, so A's first hop (to B) already fails. The
    // second query starts at the seek on C and walks leftward: the group's right node is checked first.
    expect(
      await rows(engine, "MATCH (a {name: 'B'}) ((x)-[:KNOWS]->(y:Admin)){1,2} (b) RETURN b.name"),
    ).toEqual([['C']])
    expect(
      await rows(engine, "MATCH (a {name: 'A'}) ((x)-[:KNOWS]->(y:Admin)){1,2} (b) RETURN b.name"),
    ).toEqual([])
    expect(
      await rows(
        engine,
        "MATCH (b) ((x:Person)-[:KNOWS]->(y:Person {name: 'C'})){1} (c:Admin {name: 'C'}) RETURN b.name",
      ),
    ).toEqual([['B']])
    expect(
      await rows(engine, "MATCH (a) ((x:Admin)<-[:KNOWS]-(y)){2} (b {name: 'A'}) RETURN a.name"),
    ).toEqual([])
    // An inner node's WHERE holds at every hop (quantified-group.test.ts has more).
    expect(
      await rows(engine, 'MATCH (a) ((x WHERE x.age > 1)-[:KNOWS]->(y)){1,2} (b) RETURN a.name, b.name'),
    ).toEqual([['A', 'B']])
    expect(await rows(engine, 'UNWIND [1, 2] AS x RETURN [y IN [x] WHERE y > 0 | y * 2] AS l')).toEqual([
      [[2]],
      [[4]],
    ])
  })
})

describe('dynamic labels', () => {
  it('SET, REMOVE, CREATE, MERGE and MATCH take labels computed per row', async () => {
    const engine = await seeded()
    expect(await rows(engine, "MATCH (n {name: 'A'}) SET n:$('Hero') RETURN labels(n)")).toEqual([
      [['Person', 'Hero']],
    ])
    expect(await rows(engine, "MATCH (n {name: 'A'}) REMOVE n:$(['Hero']) RETURN labels(n)")).toEqual([
      [['Person']],
    ])
    expect(await rows(engine, "CREATE (n:$('Tool'):Software {name: 'x'}) RETURN labels(n)")).toEqual([
      [['Software', 'Tool']],
    ])
    const merge = "UNWIND ['Alpha', 'Beta', 'Alpha'] AS l MERGE (n:$(l) {name: 'm'}) RETURN count(*)"
    expect(await rows(engine, merge)).toEqual([[3]])
    expect(await rows(engine, 'MATCH (n:Alpha|Beta) RETURN count(n)')).toEqual([[2]])
    expect(await rows(engine, "MATCH (n:$('Tool')) RETURN n.name")).toEqual([['x']])
    expect(await code(engine, "MATCH (n {name: 'A'}) SET n:$(1)")).toBe('INVALID_ARGUMENT_TYPE')
    expect(await code(engine, "MATCH (n {name: 'A'}) SET n:$('')")).toBe('INVALID_ARGUMENT_VALUE')
  })
})

describe('clauses and syntax', () => {
  it('FOREACH writes per element; standalone ORDER BY / SKIP / LIMIT; CYPHER 5, EXPLAIN, USE', async () => {
    const engine = await seeded()
    await rows(engine, 'FOREACH (x IN [1, 2, 3] | CREATE (:Tmp {v: x}))')
    expect(await rows(engine, 'MATCH (t:Tmp) RETURN sum(t.v)')).toEqual([[6]])
    expect(await code(engine, 'FOREACH (x IN [1] | MATCH (n) RETURN n)')).toBeDefined()
    expect(
      await rows(engine, 'MATCH (n:Person) ORDER BY n.name DESC OFFSET 1 LIMIT 1 RETURN n.name'),
    ).toEqual([['B']])
    expect(await rows(engine, 'CYPHER 5 MATCH (n:Movie) RETURN n.title')).toEqual([['M']])
    const explained = await engine.execute({ query: 'EXPLAIN MATCH (n) SET n.x = 1 RETURN n', mode: 'auto' })
    expect(explained.result.data?.rows).toEqual([])
    expect(explained.explained?.queryType).toBe('rw')
    expect(await rows(engine, 'MATCH (n) WHERE n.x = 1 RETURN n')).toEqual([])
    const profiled = await engine.execute({
      query: 'PROFILE MATCH (n:Person) WHERE n.age IS NULL RETURN n.name LIMIT 1',
      mode: 'auto',
    })
    expect(profiled.explained).toMatchObject({
      queryType: 'r',
      operators: [
        // Two persons match, but the pipeline is lazy: LIMIT 1 stops the match at its first row.
        { operator: 'Match', details: 'MATCH (n:Person) WHERE n.age IS NULL', rows: 1 },
        { operator: 'ProduceResults', details: 'RETURN n.name LIMIT 1', rows: 1 },
      ],
    })
    expect(profiled.explained?.matchOperators).toContain('NodeByLabelScan(n:Person)')
    expect((await engine.execute({ query: 'MATCH (n) SET n.seen = true', mode: 'write' })).queryType).toBe(
      'rw',
    )
    expect((await engine.execute({ query: 'CREATE ()', mode: 'write' })).queryType).toBe('w')
    expect((await engine.execute({ query: 'RETURN 1', mode: 'read' })).queryType).toBe('r')
    expect(await rows(engine, 'USE `workspace--http-default` MATCH (n:Movie) RETURN n.title')).toEqual([
      ['M'],
    ])
    expect(await rows(engine, 'USE neo4j MATCH (n:Movie) RETURN n.title')).toEqual([['M']])
    expect(await code(engine, 'USE elsewhere MATCH (n) RETURN n')).toBe('DATABASE_NOT_FOUND')
    expect(await code(engine, 'CYPHER 4 RETURN 1')).toBe('UNSUPPORTED_CYPHER_FEATURE')
  })

  it('type predicates and IS NORMALIZED', async () => {
    const engine = await seeded()
    expect(
      await rows(
        engine,
        "RETURN 1 IS :: INTEGER, 'x' IS :: INTEGER, null IS :: STRING, null IS :: STRING NOT NULL, [1] IS :: LIST<INTEGER>, 1 IS NOT :: STRING, 1.5 IS :: INTEGER | FLOAT",
      ),
    ).toEqual([[true, false, true, false, true, true, true]])
    // Temporal types, with their GQL spellings; one temporal type is not another.
    expect(
      await rows(
        engine,
        `RETURN date() IS :: DATE, datetime() IS :: ZONED DATETIME, localdatetime() IS :: LOCAL DATETIME,
          time() IS :: ZONED TIME, localtime() IS :: LOCAL TIME, duration('P1D') IS :: DURATION,
          datetime() IS :: TIMESTAMP WITH TIME ZONE, localdatetime() IS :: TIMESTAMP WITHOUT TIME ZONE,
          time() IS :: TIME WITH TIME ZONE, localtime() IS :: TIME WITHOUT TIME ZONE,
          date() IS :: DURATION, datetime() IS :: LOCAL DATETIME, [date()] IS :: LIST<DATE NOT NULL>`,
      ),
    ).toEqual([[true, true, true, true, true, true, true, true, true, true, false, false, true]])
    expect(
      await rows(
        engine,
        "RETURN 'e\u0301' IS NORMALIZED AS a, 'e\u0301' IS NFD NORMALIZED AS b, 'é' IS NOT NORMALIZED AS c",
      ),
    ).toEqual([[false, true, false]])
  })

  it('an unaliased map projection is named after its variable', async () => {
    const engine = await seeded()
    const result = await engine.run({ query: 'MATCH (n:Movie) RETURN n {.title}', mode: 'auto' })
    expect(result.data).toEqual({ columns: ['n'], rows: [[{ title: 'M' }]] })
  })
})
