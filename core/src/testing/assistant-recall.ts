import { type MemoryContext, RECALL_LIMITS, type RecallLimits } from '../memory/types.js'
import type { Engine } from '../runtime/engine.js'
import { objectiveTerms } from '../seed/tokenizer.js'
import {
  type AssistantCategory,
  type AssistantQuery,
  type AssistantSet,
  assistantMemorySet,
} from './assistant-memory.js'
import { type Figures, judge, nodeProperty, type Ranker, type SqliteDatabase } from './seed-relevance.js'

/**
 * The assistant-memory judged set (assistant-memory.ts) loaded and answered three ways on the same objects:
 * recall over memories (with and without the anchor as an explicit seed), seed search `full_text` over the
 * same texts as graph nodes, and SQLite FTS5. Used by `pnpm bench memory` and by the unit test's floors.
 */
export const ASSISTANT_CATEGORIES: AssistantCategory[] = [
  'lookup',
  'relational',
  'multihop',
  'temporal',
  'hub',
]

export const ASSISTANT_WORKSPACE = 'workspace--assistant'
const WORKSPACE = ASSISTANT_WORKSPACE

export const assistantContext: MemoryContext = {
  workspace_id: WORKSPACE,
  actor_id: 'actor--bench',
  agent_id: null,
  session_id: 'session--bench',
  permissions: ['read', 'write', 'trace', 'forget', 'consolidate'],
  correlation_id: 'bench',
}

/** The limits both judged sets are recalled with (bench/lib/recall-quality.mjs too): a page of 10, depth 2. */
export const JUDGED_RECALL_LIMITS: RecallLimits = {
  ...RECALL_LIMITS, // the largest payload
  max_items: 10,
  max_depth: 2,
  max_cost: 100_000,
  timeout_ms: 10_000,
  supernode_threshold: 10_000,
}

// biome-ignore lint/suspicious/noExplicitAny: envelopes are read as JSON
type Json = any

/** The set remembered and related in `engine`; memory id by key. */
export async function rememberAssistantSet(engine: Engine, set: AssistantSet): Promise<Map<string, string>> {
  const execute = (operation: string, input: object, key: string) =>
    engine.memory.execute(
      { contract_version: 'v1', operation, input, idempotency_key: key } as Json,
      assistantContext,
    ) as Promise<Json>
  const idOf = new Map<string, string>()
  for (const m of set.memories) {
    const res = await execute(
      'remember',
      {
        identity_key: m.key,
        kind: m.kind,
        schema_version: '1',
        content: { format: 'text', value: m.text },
        provenance: [{ source_id: `assistant:${m.key}` }],
        tags: m.tags,
        ...(m.valid_from === undefined ? {} : { valid_from: m.valid_from }),
        ...(m.valid_until === undefined ? {} : { valid_until: m.valid_until }),
      },
      `assistant-${m.key}`,
    )
    idOf.set(m.key, res.result.result.record.id)
  }
  for (const [i, r] of set.relationships.entries())
    await execute(
      'relate',
      {
        source_id: idOf.get(r.source),
        target_id: idOf.get(r.target),
        kind: r.kind,
        properties: {},
        provenance: [{ source_id: `assistant:rel-${i}` }],
        lifecycle: 'active',
      },
      `assistant-rel-${i}`,
    )
  return idOf
}

/** Recall as a ranker of memory keys; `anchored`: the objective's anchor is an explicit seed. */
export function assistantRecallRanker(
  engine: Engine,
  set: AssistantSet,
  idOf: ReadonlyMap<string, string>,
  anchored = false,
): Ranker {
  const keyOf = new Map([...idOf].map(([k, id]) => [id, k]))
  return async (objective) => {
    const q = set.queries.find((j) => j.objective === objective)
    const anchor = anchored && q !== undefined ? idOf.get(q.anchor) : undefined
    const res = (await engine.memory.execute(
      {
        contract_version: 'v1',
        operation: 'recall',
        input: { objective, seed_ids: anchor === undefined ? [] : [anchor], limits: JUDGED_RECALL_LIMITS },
      } as Json,
      assistantContext,
    )) as Json
    return { ranked: res.result.result.items.map((i: Json) => keyOf.get(i.record.id) ?? i.record.id) }
  }
}

/** The same texts as plain graph nodes for seed search: first line as name, the rest as description. */
export async function writeAssistantNodes(engine: Engine, set: AssistantSet): Promise<Map<string, string>> {
  const rows = set.memories.map((m) => {
    const [name, ...rest] = m.text.split('\n')
    return { key: m.key, name, description: rest.join('\n'), kind: m.kind }
  })
  await engine.write(
    'UNWIND $rows AS r CREATE (:Note {key: r.key, name: r.name, description: r.description})',
    {
      rows,
    },
    { workspaceId: WORKSPACE },
  )
  await engine.write(
    'UNWIND $rels AS r MATCH (a:Note {key: r.source}), (b:Note {key: r.target}) CREATE (a)-[:LINK {kind: r.kind}]->(b)',
    { rels: set.relationships },
    { workspaceId: WORKSPACE },
  )
  return nodeProperty(engine, WORKSPACE, 'key')
}

/** Seed search `full_text` over the nodes of writeAssistantNodes, as a ranker of keys. */
export function assistantSeedRanker(engine: Engine, keyOf: ReadonlyMap<string, string>): Ranker {
  return async (objective) => {
    const { candidates } = await engine.seed.search({
      objective,
      mode: 'full_text',
      top_k: 10,
      workspace_id: WORKSPACE,
    })
    return { ranked: candidates.map((c) => keyOf.get(c.node_id) ?? c.node_id) }
  }
}

/** SQLite FTS5 (bm25) over the same texts, OR of the objective's terms. */
export function assistantFts5Ranker(db: SqliteDatabase, set: AssistantSet): Ranker {
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS assistant USING fts5(key UNINDEXED, name, body)')
  const insert = db.prepare('INSERT INTO assistant (key, name, body) VALUES (?, ?, ?)')
  for (const m of set.memories) {
    const [name, ...rest] = m.text.split('\n')
    insert.run(m.key, name, rest.join(' '))
  }
  const query = db.prepare('SELECT key FROM assistant WHERE assistant MATCH ? ORDER BY rank LIMIT 10')
  return async (objective) => {
    const terms = objectiveTerms(objective)
    if (terms.length === 0) return { error: 'NO_TERMS' }
    const rows = query.all(terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ')) as { key: string }[]
    return { ranked: rows.map((r) => r.key) }
  }
}

export interface PartFigures {
  n: number
  all: number
  byCategory: Partial<Record<AssistantCategory, number>>
  perQuery: Figures['perQuery']
}

/** nDCG@10 of `rank` on the queries given, overall and by category. */
export async function scoreAssistant(queries: readonly AssistantQuery[], rank: Ranker): Promise<PartFigures> {
  const judgements = queries.map((q) => ({
    domain: 'assistant',
    objective: q.objective,
    relevant: Object.entries(q.grades).map(([key, grade]) => ({
      stix_id: key,
      external_id: key,
      name: key,
      grade,
    })),
  }))
  const figures = await judge(judgements, rank)
  const byCategory: PartFigures['byCategory'] = {}
  for (const c of ASSISTANT_CATEGORIES) {
    const idx = queries.map((q, i) => (q.category === c ? i : -1)).filter((i) => i >= 0)
    if (idx.length > 0)
      byCategory[c] = idx.reduce((s, i) => s + (figures.perQuery[i]?.ndcg10 ?? 0), 0) / idx.length
  }
  return { n: queries.length, all: figures.ndcg10, byCategory, perQuery: figures.perQuery }
}

export { assistantMemorySet }
