// Seed ranking on the TUNING part of the judged set only (attack-judgements.json): hybrid and full_text
// nDCG@10 beside SQLite FTS5, per domain, and with WORST=n the n worst hybrid objectives with what was
// wanted and what came. Never reads the kept-aside part (that is `pnpm bench seed`'s, read rarely).
// Needs `pnpm build` first (reads dist).
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { openEngine } = await import(join(root, 'core/dist/index.js'))
const { SeedSearch, WordVectorModel, loadWordVectors, WEIGHTS } = await import(
  join(root, 'core/dist/seed/index.js')
)
// WEIGHTS='{"content":0.8,"degree":0.05}' tries other fusion weights (the tuning part only).
if (process.env.WEIGHTS) Object.assign(WEIGHTS, JSON.parse(process.env.WEIGHTS))
const { attackObjects, embeddedRanker, fts5Ranker, importAttack, judge, readJudgements } = await import(
  join(root, 'core/dist/testing/seed-relevance.js')
)
const { localWordVectorsPath } = await import(join(root, 'plugins/seed/dist/embeddings.js'))
const Database = createRequire(import.meta.url)('better-sqlite3')

const WS = 'attack'
const engine = await openEngine({ storage: { mode: 'memory' } })
const stixOf = await importAttack(engine, WS)
const seed = SeedSearch.attach(
  engine,
  process.env.DENSE ? { hybridDenseShare: Number(process.env.DENSE) } : {},
)
seed.embeddings.set(new WordVectorModel(await loadWordVectors({ path: localWordVectorsPath() })))
await seed.embeddingsSettled(WS)
const tuning = readJudgements()
const db = new Database(':memory:')
const objects = attackObjects()
const fts5 = fts5Ranker(db, objects)
const r3 = (x) => x.toFixed(3)
const hybrid = await judge(tuning, embeddedRanker(seed, 'hybrid', WS, stixOf))
const fullText = await judge(tuning, embeddedRanker(seed, 'full_text', WS, stixOf))
const peer = await judge(tuning, fts5)
const byDomain = (f, d) => {
  const qs = f.perQuery.filter((_, i) => tuning[i].domain === d)
  return r3(qs.reduce((s, q) => s + q.ndcg10, 0) / qs.length)
}
console.log(
  `tuning (${tuning.length}) hybrid ${r3(hybrid.ndcg10)} (ics ${byDomain(hybrid, 'ics')} mobile ${byDomain(hybrid, 'mobile')})` +
    ` full_text ${r3(fullText.ndcg10)} fts5 ${r3(peer.ndcg10)} -> ${r3(hybrid.ndcg10 / peer.ndcg10)}x;` +
    ` refused ${hybrid.refused}/${fullText.refused}`,
)
if (process.env.PER) for (const q of hybrid.perQuery) console.log(`${r3(q.ndcg10)} ${q.objective}`)
const worst = Number(process.env.WORST ?? 0)
if (worst > 0) {
  const names = new Map(objects.map((o) => [o.id, `${o.type.slice(0, 6)}:${o.name}`]))
  const rank = embeddedRanker(seed, 'hybrid', WS, stixOf)
  const rows = hybrid.perQuery.map((q, i) => ({ q, j: tuning[i] })).sort((a, b) => a.q.ndcg10 - b.q.ndcg10)
  for (const { q, j } of rows.slice(0, worst)) {
    const a = await rank(q.objective)
    console.log(`${r3(q.ndcg10)} "${q.objective}"`)
    console.log('   want:', j.relevant.map((r) => `${r.grade}:${names.get(r.stix_id)}`).join(' | '))
    const got = (a.ranked ?? []).slice(0, 6).map((id) => {
      const g = j.relevant.find((r) => r.stix_id === id)?.grade ?? 0
      return `${g}:${names.get(id) ?? id}`
    })
    console.log('   got :', got.join(' | '))
  }
}
db.close()
await engine.close()
