// Loads the benchmark graph into one engine and times the query set; prints one JSON line of results.
import { generateGraph, lcg, loadGenerated } from './lib/graph-generator.mjs'

const engineName = process.argv[2]
const NODES = Number(process.env.BENCH_NODES ?? 100_000)
const RELS = Number(process.env.BENCH_RELS ?? 500_000)
const PERSONS = Math.floor(NODES * 0.6)

async function ours() {
  const { openEngine } = await import('@service/core')
  // Budgets raised for the grouped aggregation and the 10k batch create; everything else is the default.
  const engine = await openEngine({
    cypherBudgets: { maxLoadedRecords: 10_000_000, maxMutations: 1_000_000 },
  })
  const started = performance.now()
  await loadGenerated(engine, 'bench', { nodes: NODES, relationships: RELS })
  const loadMs = performance.now() - started
  const run = (query, params) =>
    engine.cypher({ query, params, mode: 'auto', workspaceId: 'bench' }).then((r) => {
      if (r.status !== 'Success') throw new Error(`${query}: ${JSON.stringify(r.validation_errors)}`)
      return r
    })
  return { loadMs, run, close: () => engine.close() }
}

async function grafeo() {
  const { default: pkg } = await import('@grafeo-db/js')
  const db = pkg.GrafeoDB.create()
  const ids = []
  const started = performance.now()
  for (const item of generateGraph({ nodes: NODES, relationships: RELS })) {
    if (item.kind === 'node') ids[item.index] = db.createNode(item.labels, item.props).id
    else db.createEdge(ids[item.start], ids[item.end], item.type, item.props)
  }
  await db.executeCypher('CREATE INDEX FOR (p:Person) ON (p.uid)')
  const loadMs = performance.now() - started
  const run = (query, params) => db.executeCypher(query, params)
  return { loadMs, run, close: () => db.close?.() }
}

const subject = engineName === 'ours' ? await ours() : await grafeo()
const rand = lcg(7)
const uid = () => ({ u: Math.floor(rand() * PERSONS) })
let tag = 0
const cases = [
  ['point lookup (indexed uid)', 'MATCH (p:Person {uid: $u}) RETURN p.name AS name', uid, 2000],
  [
    '1-hop expand + filter',
    'MATCH (p:Person {uid: $u})-[:KNOWS]->(f:Person) WHERE f.age > 30 RETURN f.uid AS uid',
    uid,
    2000,
  ],
  ['2-hop count', 'MATCH (p:Person {uid: $u})-[:KNOWS]->()-[:KNOWS]->(f) RETURN count(f) AS c', uid, 1000],
  [
    'grouped aggregation (60k rows)',
    'MATCH (p:Person) RETURN p.city AS city, count(*) AS n, avg(p.age) AS age',
    () => ({}),
    10,
  ],
  ['UNWIND create 10k nodes', 'UNWIND range(1, 10000) AS i CREATE (:Temp {i: i})', () => ({}), 5],
  [
    'MERGE upsert',
    'MERGE (t:Tag {name: $n}) ON CREATE SET t.hits = 1 ON MATCH SET t.hits = t.hits + 1',
    () => ({ n: `tag-${tag++ % 100}` }),
    2000,
  ],
]
const results = []
for (const [name, query, params, iterations] of cases) {
  for (let i = 0; i < Math.min(20, iterations); i++) await subject.run(query, params()) // warm-up
  const times = []
  const t0 = performance.now()
  for (let i = 0; i < iterations; i++) {
    const t = performance.now()
    await subject.run(query, params())
    times.push(performance.now() - t)
  }
  const total = performance.now() - t0
  times.sort((a, b) => a - b)
  results.push({
    name,
    opsPerSec: (iterations * 1000) / total,
    p50: times[Math.floor(times.length / 2)],
    p95: times[Math.floor(times.length * 0.95)],
  })
}
globalThis.gc?.()
const rssMb = process.memoryUsage().rss / 1048576
process.stdout.write(`${JSON.stringify({ engine: engineName, loadMs: subject.loadMs, rssMb, results })}\n`)
await subject.close()
