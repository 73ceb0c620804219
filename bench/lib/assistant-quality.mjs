// Recall quality on the assistant-memory judged set (core/src/testing/assistant-memory.ts, generated, no data
// file): an assistant's memory of its user, with the user as a hub. Recall (and recall with each objective's
// anchor as an explicit seed) beside seed search full_text and SQLite FTS5 on the same texts. nDCG@10 by
// category; the kept-aside part only with `final` (RECALL_JUDGED_FINAL=1).
import { createRequire } from 'node:module'
import { join } from 'node:path'

export async function assistantQuality({ root, final, row }) {
  const { openEngine } = await import(join(root, 'core/dist/index.js'))
  const a = await import(join(root, 'core/dist/testing/assistant-recall.js'))
  const set = a.assistantMemorySet()
  const parts = final ? ['tuning', 'kept_aside'] : ['tuning']
  const table = new Map() // ranker -> part -> figures
  const record = async (name, rank) => {
    const byPart = {}
    for (const part of parts)
      byPart[part] = await a.scoreAssistant(
        set.queries.filter((q) => q.part === part),
        rank,
      )
    table.set(name, byPart)
  }
  const engine = await openEngine()
  const idOf = await a.rememberAssistantSet(engine, set)
  await record('recall', a.assistantRecallRanker(engine, set, idOf))
  await record('recall, anchor as seed', a.assistantRecallRanker(engine, set, idOf, true))
  await engine.close()
  const seedEngine = await openEngine()
  const keyOf = await a.writeAssistantNodes(seedEngine, set)
  await record('seed full_text', a.assistantSeedRanker(seedEngine, keyOf))
  await seedEngine.close()
  const Database = createRequire(join(root, 'bench/package.json'))('better-sqlite3')
  const db = new Database(':memory:')
  await record('SQLite FTS5 (bm25)', a.assistantFts5Ranker(db, set))
  db.close()

  process.stderr.write(
    `    assistant set: ${set.memories.length} memories, ${set.relationships.length} relationships, ${set.queries.length} objectives` +
      ` (${set.queries.filter((q) => q.part === 'tuning').length} tuning, ${set.queries.filter((q) => q.part === 'kept_aside').length} kept aside${final ? '' : ', not scored: set RECALL_JUDGED_FINAL=1'})\n`,
  )
  const cats = a.ASSISTANT_CATEGORIES
  const fmt = (v) => (v === undefined ? '' : v.toFixed(3))
  for (const part of parts) {
    for (const [name, byPart] of table) {
      const f = byPart[part]
      row(
        `assistant nDCG@10 ${part} (${f.n}) ${name}: all / ${cats.join(' / ')}`,
        [f.all, ...cats.map((c) => f.byCategory[c])].map(fmt).join(' / '),
        '',
      )
    }
    const recall = table.get('recall')[part]
    const seed = table.get('seed full_text')[part]
    row(
      `assistant recall / seed full_text, ${part}: all, lookup`,
      `${(recall.all / seed.all).toFixed(2)}x / ${(recall.byCategory.lookup / seed.byCategory.lookup).toFixed(2)}x`,
      '',
      '>= 1.3x / 1.0x',
      part === 'kept_aside' ? '' : '(targets are judged on kept_aside)',
    )
    const anchored = table.get('recall, anchor as seed')[part].perQuery
    const worse = recall.perQuery.filter((q, i) => (anchored[i]?.ndcg10 ?? 0) < q.ndcg10 - 1e-9)
    row(
      `assistant ${part}: objectives where the anchor as seed scores below recall without it`,
      `${worse.length} of ${recall.n}`,
      '',
      '0',
      worse.map((q) => q.objective).join('; '),
    )
  }
  if (process.env.RECALL_JUDGED_DETAIL === '1') {
    const seed = table.get('seed full_text').tuning.perQuery
    const anchored = table.get('recall, anchor as seed').tuning.perQuery
    for (const [i, q] of table.get('recall').tuning.perQuery.entries())
      process.stderr.write(
        `    ${q.ndcg10.toFixed(3)} (anchored ${anchored[i].ndcg10.toFixed(3)}, full_text ${seed[i].ndcg10.toFixed(3)})  ${q.objective}\n`,
      )
  }
}
