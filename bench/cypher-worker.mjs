// Loads the benchmark graph into one engine and times the query set; prints one JSON line of results.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { importCsvOffline } from './lib/cypher-import-csv.mjs'
import { loadCsvDurably } from './lib/cypher-load-csv.mjs'
import { writeGraphCsv } from './lib/graph-csv.mjs'
import { GRAPH_SCHEMA, generateGraph, lcg, loadGenerated } from './lib/graph-generator.mjs'

const engineName = process.argv[2]
const NODES = Number(process.env.BENCH_NODES ?? 100_000)
const RELS = Number(process.env.BENCH_RELS ?? 500_000)
const PERSONS = Math.floor(NODES * 0.6)

// `ours-import`: only the offline importer on the graph's CSV files, in a process of its own.
if (engineName === 'ours-import') {
  process.stdout.write(
    `${JSON.stringify({ engine: engineName, csvLoad: await importCsvOffline(NODES, RELS) })}\n`,
  )
  process.exit(0)
}

async function ours() {
  const { openEngine } = await import('@service/core')
  // Budgets raised for the grouped aggregation and the 10k batch create; everything else is the default.
  const engine = await openEngine({
    cypherBudgets: { maxLoadedRecords: 10_000_000, maxMutations: 1_000_000 },
  })
  const started = performance.now()
  await loadGenerated(engine, 'bench', { nodes: NODES, relationships: RELS })
  await engine.seed.warm() // the load's full-text indexing counts in the load time, not in the queries'
  const loadMs = performance.now() - started
  const run = (query, params) =>
    engine.cypher({ query, params, mode: 'auto', workspaceId: 'bench' }).then((r) => {
      if (r.status !== 'Success') throw new Error(`${query}: ${JSON.stringify(r.validation_errors)}`)
      return r
    })
  // The seed-search index is caught up lazily (on the next search, or in the background after long write
  // runs): before memory is read it is brought up to date, so our RSS includes it, and the time it took is
  // reported beside the figures.
  const settle = async () => {
    const t = performance.now()
    await engine.seed.warm()
    return { seedCatchUpMs: performance.now() - t, seedDocuments: engine.seed.stats('bench').documents }
  }
  return { loadMs, run, settle, close: () => engine.close() }
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

// Kuzu is schema-first: one node table per label and one rel table per type, made from the generator's schema
// and bulk-loaded with COPY FROM CSV (its own fast path), keyed by uid. The benchmark's write queries need two
// tables the generated graph lacks: Temp (serial key) and Tag (keyed by name).
async function kuzu() {
  const { default: pkg } = await import('kuzu')
  const db = new pkg.Database(':memory:', 4 * 1024 ** 3)
  const conn = new pkg.Connection(db)
  const exec = async (q) => (await conn.query(q)).getAll()
  const started = performance.now()
  const dir = mkdtempSync(join(tmpdir(), 'kuzu-bench-'))
  const files = await writeGraphCsv(dir, { nodes: NODES, relationships: RELS })
  const kuzuType = { int: 'INT64', string: 'STRING', float: 'DOUBLE' }
  for (const [label, props] of Object.entries(GRAPH_SCHEMA.nodes)) {
    const cols = props.map(([k, t]) => `${k} ${kuzuType[t]}`).join(', ')
    await exec(`CREATE NODE TABLE ${label}(${cols}, PRIMARY KEY (uid))`)
  }
  for (const [type, rel] of Object.entries(GRAPH_SCHEMA.relationships)) {
    const cols = rel.properties.map(([k, t]) => `, ${k} ${kuzuType[t]}`).join('')
    await exec(`CREATE REL TABLE ${type}(FROM ${rel.from} TO ${rel.to}${cols})`)
  }
  // COPY FROM alone is timed too: the load column beside our LOAD CSV on the same files.
  let copyMs = 0
  let copyRows = 0
  for (const [table, { file, rows }] of files) {
    const t = performance.now()
    await exec(`COPY ${table} FROM '${file}' (HEADER=false)`)
    copyMs += performance.now() - t
    copyRows += rows
  }
  rmSync(dir, { recursive: true, force: true })
  await exec('CREATE NODE TABLE Temp(id SERIAL, i INT64, PRIMARY KEY (id))')
  await exec('CREATE NODE TABLE Tag(name STRING, hits INT64, PRIMARY KEY (name))')
  const loadMs = performance.now() - started
  const prepared = new Map()
  const run = async (query, params) => {
    let statement = prepared.get(query)
    if (statement === undefined) {
      statement = await conn.prepare(query)
      if (!statement.isSuccess()) throw new Error(`${query}: ${statement.getErrorMessage()}`)
      prepared.set(query, statement)
    }
    return (await conn.execute(statement, params)).getAll()
  }
  // Closing the native database crashes kuzu 0.11.3 at exit (segfault); the process ends right after anyway.
  return { loadMs, run, close: () => {}, csvLoad: { ms: copyMs, rows: copyRows } }
}

// `ours-csv`: only the durable LOAD CSV … IN TRANSACTIONS load of the graph's CSV files, in a process of its own.
if (engineName === 'ours-csv') {
  process.stdout.write(
    `${JSON.stringify({ engine: engineName, csvLoad: await loadCsvDurably(NODES, RELS) })}\n`,
  )
  process.exit(0)
}
const subjects = { ours, grafeo, kuzu }
const subject = await subjects[engineName]()
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
  [
    'label scan + filter',
    'MATCH (p:Person) WHERE p.age = $a AND p.score > 50.0 RETURN p.uid AS uid',
    () => ({ a: Math.floor(rand() * 90) }),
    50,
  ],
  [
    'top-k ORDER BY … LIMIT',
    'MATCH (p:Person) WHERE p.age > $a RETURN p.uid AS uid, p.score AS score ORDER BY score DESC, uid LIMIT 10',
    () => ({ a: Math.floor(rand() * 30) }),
    20,
  ],
  ['UNWIND create 10k nodes', 'UNWIND range(1, 10000) AS i CREATE (:Temp {i: i})', () => ({}), 5],
  [
    'MERGE upsert',
    'MERGE (t:Tag {name: $n}) ON CREATE SET t.hits = 1 ON MATCH SET t.hits = t.hits + 1',
    () => ({ n: `tag-${tag++ % 100}` }),
    2000,
  ],
  // Temporal cases. A query given per engine runs only where that engine has one: Kuzu spells the datetime
  // comparison its own way (timestamps), Grafeo has no datetime maps, and neither has duration.between.
  [
    'temporal: 100k datetime comparisons',
    {
      ours: "UNWIND range(1, 100000) AS i WITH datetime({epochSeconds: i * 3600}) AS t WHERE t < datetime('1980-01-01T00:00Z') RETURN count(*) AS c",
      kuzu: "UNWIND range(1, 100000) AS i WITH to_timestamp(i * 3600) AS t WHERE t < timestamp('1980-01-01 00:00:00') RETURN count(*) AS c",
    },
    () => ({}),
    10,
  ],
  [
    'temporal: grouped duration.between sum (60k rows)',
    {
      ours: "MATCH (p:Person) RETURN p.city AS city, sum(duration.between(date({year: 1950 + p.age % 50, month: 1, day: 1 + p.age % 28}), date('2024-06-30'))) AS total",
    },
    () => ({}),
    5,
  ],
  // Shortest path between two random persons over KNOWS, beside Kuzu's own spelling (SHORTEST on a recursive
  // relationship); Grafeo has no shortestPath.
  [
    'shortestPath over KNOWS (≤ 6 hops)',
    {
      ours: 'MATCH p = shortestPath((a:Person {uid: $a})-[:KNOWS*..6]->(b:Person {uid: $b})) RETURN length(p) AS hops',
      kuzu: 'MATCH p = (a:Person)-[:KNOWS* SHORTEST 1..6]->(b:Person) WHERE a.uid = $a AND b.uid = $b RETURN length(p) AS hops',
    },
    () => ({ a: Math.floor(rand() * PERSONS), b: Math.floor(rand() * PERSONS) }),
    200,
  ],
]
const results = []
// BENCH_ONLY: a regular expression picking the cases to time (for profiling one of them).
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null
async function time([name, queries, params, iterations]) {
  if (only !== null && !only.test(name)) return
  const query = typeof queries === 'string' ? queries : queries[engineName]
  if (query === undefined) {
    results.push({ name, skipped: true })
    return
  }
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
  const last = await subject.run(query, params())
  results.push({
    name,
    rows: last.data?.rows.length ?? last.length,
    opsPerSec: (iterations * 1000) / total,
    p50: times[Math.floor(times.length / 2)],
    p95: times[Math.floor(times.length * 0.95)],
  })
}
// The cases every engine runs first; memory is sampled after them, so the RSS comparison stays the one the
// targets were set on. The cases only some engines can run (temporal, shortest path) come after.
const shared = cases.filter(([, queries]) => typeof queries === 'string')
for (const c of shared) await time(c)
const settled = (await subject.settle?.()) ?? {}
globalThis.gc?.()
const rssMb = process.memoryUsage().rss / 1048576
// The JS heap after GC: steadier than RSS (which keeps freed pages) for our engine; the native peers hold
// their data outside it.
const heapMb = process.memoryUsage().heapUsed / 1048576
for (const c of cases) if (!shared.includes(c)) await time(c)
process.stdout.write(
  `${JSON.stringify({ engine: engineName, loadMs: subject.loadMs, rssMb, heapMb, results, csvLoad: subject.csvLoad, ...settled })}\n`,
)
await subject.close()
