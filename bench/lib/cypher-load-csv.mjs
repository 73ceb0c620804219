// The load column of `pnpm bench cypher`: the generated graph's CSV files (the ones Kuzu's COPY FROM reads)
// loaded into a persistent, fsyncing engine with LOAD CSV … CALL { … } IN TRANSACTIONS, nodes first (by
// label), then relationships (endpoints found through a uid index). Every batch is durable before the next.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeGraphCsv } from './graph-csv.mjs'
import { GRAPH_SCHEMA } from './graph-generator.mjs'

const BATCH = 10_000
const convert = { int: (c) => `toInteger(${c})`, float: (c) => `toFloat(${c})`, string: (c) => c }
const props = (columns, from) =>
  columns.map(([key, type], i) => `${key}: ${convert[type](`r[${i + from}]`)}`).join(', ')

/** Loads the graph durably; returns the rows loaded and the milliseconds the LOAD CSV statements took. */
export async function loadCsvDurably(nodes, relationships) {
  // BENCH_CORE: another build of the core package to compare against (a path to its dist/index.js).
  const { openEngine } = await import(process.env.BENCH_CORE ?? '@service/core')
  const root = mkdtempSync(join(tmpdir(), 'load-csv-bench-'))
  const importDir = join(root, 'import')
  mkdirSync(importDir)
  try {
    const files = await writeGraphCsv(importDir, { nodes, relationships })
    const engine = await openEngine({
      storage: { mode: 'persistent', dir: join(root, 'graph'), requireFsync: true },
      cypherImport: { importDir },
      cypherBudgets: { maxMutations: 1_000_000 },
    })
    const run = async (query, mode = 'write') => {
      const r = await engine.cypher({ query, mode, workspaceId: 'bench' })
      if (r.status !== 'Success') throw new Error(`${query}: ${JSON.stringify(r.validation_errors)}`)
      return r.data?.rows[0]?.[0]
    }
    for (const label of Object.keys(GRAPH_SCHEMA.nodes)) await run(`CREATE INDEX FOR (n:${label}) ON (n.uid)`)
    let rows = 0
    const started = performance.now()
    const cpuStarted = process.cpuUsage()
    for (const [label, columns] of Object.entries(GRAPH_SCHEMA.nodes)) {
      await run(`LOAD CSV FROM 'file:///${label}.csv' AS r
        CALL (r) { CREATE (:${label} {${props(columns, 0)}}) } IN TRANSACTIONS OF ${BATCH} ROWS`)
      rows += files.get(label)?.rows ?? 0
    }
    const nodeMs = performance.now() - started
    const nodeCpu = process.cpuUsage(cpuStarted)
    const relStarted = process.cpuUsage()
    const nodeRows = rows
    for (const [type, rel] of Object.entries(GRAPH_SCHEMA.relationships)) {
      const set = rel.properties.length > 0 ? ` {${props(rel.properties, 2)}}` : ''
      await run(`LOAD CSV FROM 'file:///${type}.csv' AS r
        CALL (r) {
          MATCH (a:${rel.from} {uid: toInteger(r[0])}), (b:${rel.to} {uid: toInteger(r[1])})
          CREATE (a)-[:${type}${set}]->(b)
        } IN TRANSACTIONS OF ${BATCH} ROWS`)
      rows += files.get(type)?.rows ?? 0
    }
    const ms = performance.now() - started
    const relCpu = process.cpuUsage(relStarted)
    // A load that dropped rows (a type mismatch finding no endpoint) must not pass for a fast one.
    const loaded =
      (await run('MATCH (n) RETURN count(n)', 'read')) +
      (await run('MATCH ()-[r]->() RETURN count(r)', 'read'))
    if (loaded !== rows) throw new Error(`LOAD CSV loaded ${loaded} records of ${rows} rows`)
    await engine.close()
    // Nodes and relationships apart too: the two statements take different paths (CREATE vs MATCH + CREATE).
    // The process's CPU time beside the wall time: on a shared machine it moves less than the wall time does.
    const cpuMs = (usage) => (usage.user + usage.system) / 1000
    return {
      ms,
      rows,
      nodes: { ms: nodeMs, rows: nodeRows, cpuMs: cpuMs(nodeCpu) },
      relationships: { ms: ms - nodeMs, rows: rows - nodeRows, cpuMs: cpuMs(relCpu) },
    }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}
