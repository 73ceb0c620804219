/**
 * The seed-search relevance gate (issue 14): ATT&CK ICS + Mobile imported over HTTP into the real server,
 * every judged objective asked over HTTP in each mode (top_k 10, as a caller is served: a 422 counts as an
 * empty list), SQLite FTS5's BM25 over the same objects in the same run as the peer. Why here and not in
 * a unit test: this is the path a user takes (HTTP, the product's STIX import, the server's own embedding
 * start-up), it costs a few seconds, and the same run checks the embedded door gives identical figures.
 */
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../../core/src/runtime/index.js'
import { loadWordVectors, WordVectorModel } from '../../core/src/seed/embeddings/word-vectors.js'
import type { RetrievalMode } from '../../core/src/seed/rules.js'
import { SeedSearch } from '../../core/src/seed/search.js'
import {
  attackObjects,
  attackPresent,
  embeddedRanker,
  type Figures,
  fts5Ranker,
  importAttack,
  judge,
  type Ranker,
  readAttackBundles,
  readJudgements,
  type SqliteDatabase,
} from '../../core/src/testing/seed-relevance.js'
import { type RunningServer, sharedDir, startServer } from './harness.js'

/** Ratchet: raise it when the ranking improves (measured 0.825 on 74 objectives). */
const HYBRID_NDCG10_FLOOR = 0.8
/** Ceiling on refusals in the default mode: at most one objective in 30. */
const MAX_REFUSED_SHARE = 1 / 30

const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => SqliteDatabase
const present = attackPresent(sharedDir)
if (!present)
  console.warn(`seed relevance: ATT&CK bundles not found under SHARED_DIR (${sharedDir}); skipped`)

interface Answer {
  ok: boolean
  result: { candidates: { node_id: string }[] }
  error: { code: string }
}

describe.skipIf(!present)('seed relevance over HTTP after a real ATT&CK import', () => {
  let server: RunningServer
  let engine: Engine
  let stixOf: Map<string, string>
  const judgements = readJudgements()
  const figures = new Map<string, Figures>()

  const httpRanker =
    (mode: RetrievalMode): Ranker =>
    async (objective) => {
      const res = await server.request<Answer>('/v1/seed/search', { body: { objective, mode, top_k: 10 } })
      if (res.status === 422) return { error: res.json.error.code }
      expect(res.status).toBe(200)
      return { ranked: res.json.result.candidates.map((c) => stixOf.get(c.node_id) ?? c.node_id) }
    }

  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_SEED_EMBEDDING_PROVIDER: 'local' } })
    for (const bundle of readAttackBundles(sharedDir)) {
      const res = await server.request<{
        result: { metrics: { failed: number; unresolved_reference: number } }
      }>('/v1/import/stix', {
        body: { bundle },
      })
      expect(res.status).toBe(200)
      expect(res.json.result.metrics.failed + res.json.result.metrics.unresolved_reference).toBe(0)
    }
    const rows = await server.request<{ result: { data: { rows: [string, string][] } } }>('/v1/cypher/read', {
      body: { query: 'MATCH (n:StixObject) RETURN elementId(n), n.stix_id' },
    })
    stixOf = new Map(rows.json.result.data.rows)
    // The local model loads in the background: semantic answers 503 until it is in place.
    for (let i = 0; ; i++) {
      const probe = await server.request('/v1/seed/search', { body: { objective: 'modbus', mode: 'vector' } })
      if (probe.status === 200) break
      if (i > 600) throw new Error(`the embedding model did not load: ${probe.text}`)
      await new Promise((r) => setTimeout(r, 200))
    }
    for (const mode of ['hybrid', 'full_text', 'semantic', 'vector'] as const)
      figures.set(mode, await judge(judgements, httpRanker(mode)))
    const db = new Database(':memory:')
    figures.set('fts5', await judge(judgements, fts5Ranker(db, attackObjects(sharedDir))))
    db.close()
    const table = [...figures].map(
      ([name, f]) =>
        `${name.padEnd(10)} nDCG@10 ${f.ndcg10.toFixed(3)}  recall@10 ${f.recall10.toFixed(3)}  422s ${f.refused}/${judgements.length}`,
    )
    console.log(`seed relevance (${judgements.length} objectives, ATT&CK ICS + Mobile):\n${table.join('\n')}`)
  }, 180_000)
  afterAll(async () => {
    await server?.stop()
    await engine?.close()
  })

  it('hybrid refuses at most one objective in 30 and keeps its nDCG@10 floor', () => {
    const hybrid = figures.get('hybrid') as Figures
    expect(hybrid.refused).toBeLessThanOrEqual(Math.floor(judgements.length * MAX_REFUSED_SHARE))
    expect(hybrid.ndcg10).toBeGreaterThanOrEqual(HYBRID_NDCG10_FLOOR)
  })

  it('hybrid is at least 10% above SQLite FTS5 BM25 and full_text at least matches it', () => {
    const fts5 = (figures.get('fts5') as Figures).ndcg10
    expect((figures.get('hybrid') as Figures).ndcg10).toBeGreaterThanOrEqual(1.1 * fts5)
    expect((figures.get('full_text') as Figures).ndcg10).toBeGreaterThanOrEqual(fts5)
    expect((figures.get('full_text') as Figures).refused).toBeLessThanOrEqual(
      Math.floor(judgements.length * MAX_REFUSED_SHARE),
    )
  })

  it.each([
    'malware that targets safety instrumented systems',
    'how do attackers steal SMS messages on Android',
    'modify controller firmware',
    'location tracking of mobile device',
    'suppress alarms so operators do not notice',
    'SIM swapping to take over accounts',
  ])('answers what issue 14 saw refused: %s', async (objective) => {
    for (const mode of ['hybrid', 'full_text']) {
      const res = await server.request<Answer>('/v1/seed/search', { body: { objective, mode } })
      expect(res.status, `${mode}: ${res.text}`).toBe(200)
      expect(res.json.result.candidates).toHaveLength(10)
    }
  })

  it('still refuses objectives without a subject', async () => {
    for (const objective of ['how do adversaries use this', 'malware', 'what is the attack technique'])
      expect((await server.request<Answer>('/v1/seed/search', { body: { objective } })).json.error.code).toBe(
        'OVERBROAD_OBJECTIVE',
      )
  })

  it('the embedded door gives the same figures as HTTP', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    const embeddedStixOf = await importAttack(engine, 'attack', sharedDir)
    const { localWordVectorsPath } = await import('../../plugins/seed/src/embeddings.js')
    seed.embeddings.set(new WordVectorModel(await loadWordVectors({ path: localWordVectorsPath() })))
    await seed.embeddingsSettled('attack')
    for (const mode of ['hybrid', 'full_text'] as const) {
      const embedded = await judge(judgements, embeddedRanker(seed, mode, 'attack', embeddedStixOf))
      expect(embedded.perQuery).toEqual(figures.get(mode)?.perQuery)
    }
  })
})
