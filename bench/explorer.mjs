// `pnpm bench explorer`: maximum-budget projections of a 200k-node / 500k-relationship graph with history,
// at the current boundary and at an old timeshot; and a 5,000-entry log query out of 1M audit entries. Then
// the explorer page in Chromium (explorer-page.mjs). BENCH_EXPLORER_PART=json|page runs one part only.
import { openEngine } from '@service/core'

const PART = process.env.BENCH_EXPLORER_PART ?? 'all'
if (PART === 'page') {
  await import('./explorer-page.mjs')
  process.exit(0)
}

import { loadGenerated } from './lib/graph-generator.mjs'

const NODES = Number(process.env.BENCH_NODES ?? 200_000)
const RELS = Number(process.env.BENCH_RELS ?? 500_000)
const AUDIT = Number(process.env.BENCH_AUDIT ?? 1_000_000)
const engine = await openEngine({
  cypherBudgets: {
    maxLoadedRecords: 10_000_000,
    maxMutations: 10_000_000,
    maxWarmAdjacencyEntries: 10_000_000,
  },
})
const { session_id } = await engine.sessions.start({ workspace_id: 'bench', actor_id: 'bench' })
const rows = []
const time = async (name, fn, extra = () => '') => {
  const t = performance.now()
  const value = await fn()
  const ms = performance.now() - t
  rows.push({ name, ms, extra: extra(value) })
  process.stderr.write(`  ${name}: ${ms.toFixed(0)} ms ${extra(value)}\n`)
  return value
}

await time('load graph under the session (20k-record writes, one timeshot each)', () =>
  loadGenerated(engine, 'bench', { nodes: NODES, relationships: RELS }, { sessionId: session_id }),
)
const timeline = engine.explorer.timeline(session_id)
const oldest = timeline.roots[0]
const chain = []
for (let n = oldest; n !== undefined; n = n.children[0]) chain.push(n.boundary)
const old = chain[Math.floor(chain.length / 2)] // half the graph existed then
await time('history: update 50k nodes, delete 10k (later than the old timeshot)', async () => {
  await engine.write(
    'MATCH (p:Person) WHERE p.uid < 50000 SET p.score = p.score + 1',
    {},
    { sessionId: session_id, workspaceId: 'bench' },
  )
  await engine.write(
    'MATCH (p:Person) WHERE p.uid >= 50000 AND p.uid < 60000 DETACH DELETE p',
    {},
    { sessionId: session_id, workspaceId: 'bench' },
  )
})
const budget = {
  max_nodes: 50000,
  max_relationships: 100000,
  max_properties_per_record: 256,
  max_payload_bytes: 16777216,
  max_computation_units: 1000000,
}
const describe = (p) =>
  `${p.metadata.returned_nodes} nodes, ${p.metadata.returned_relationships} rels, ${(Buffer.byteLength(JSON.stringify(p)) / 1048576).toFixed(1)} MiB, partial ${p.metadata.partial}`
for (let i = 0; i < 2; i++) {
  await time(
    `projection at current, max budgets (run ${i + 1})`,
    () => engine.explorer.graph(session_id, { ...budget }),
    describe,
  )
  await time(
    `projection at an old timeshot, max budgets (run ${i + 1})`,
    () =>
      engine.explorer.graph(session_id, {
        ...budget,
        boundary_kind: 'timeshot',
        boundary_id: old.boundary_id,
      }),
    describe,
  )
}
await time(`append ${AUDIT.toLocaleString()} audit entries`, async () => {
  const manager = engine.sessionManager
  const base = Date.now()
  for (let i = 0; i < AUDIT; i++) {
    manager.audit.add({
      timestamp: base + i,
      level: 'info',
      target: 'service::audit',
      fields: {
        message: 'x',
        event: i % 2 ? 'cypher_audit_output' : 'cypher_audit_input',
        audit_event_id: `e${i >> 1}`,
        session_id,
        workspace_id: 'bench',
      },
    })
  }
})
for (let i = 0; i < 3; i++) {
  await time(
    `logs query: 5,000 newest of ${AUDIT.toLocaleString()} (run ${i + 1})`,
    () => engine.sessions.logs(session_id, { limit: 5000 }),
    (p) => `${p.entries.length} entries, parity ${p.audit_parity.parity_ok}`,
  )
}
globalThis.gc?.()
console.log(
  `\nexplorer: ${NODES.toLocaleString()} nodes, ${RELS.toLocaleString()} relationships, ${chain.length} timeshots, Node ${process.version}; RSS ${Math.round(process.memoryUsage().rss / 1048576)} MiB`,
)
console.log('| measurement | ms | detail |')
console.log('|---|---:|---|')
for (const r of rows) console.log(`| ${r.name} | ${r.ms.toFixed(1)} | ${r.extra} |`)
console.log('\ntarget: a maximum-budget projection in under 1 s')
await engine.close()
if (PART !== 'json') await import('./explorer-page.mjs')
