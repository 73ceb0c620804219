/**
 * Relevance evaluation for seed search over ATT&CK ICS + Mobile, beside a plain-BM25 peer (SQLite FTS5).
 * Test and benchmark code only: the bundles are read from SHARED_DIR (never shipped, never copied into
 * the repo). The ranker is any function from an objective to stix ids, so the same figures come from the
 * embedded API, the HTTP route or the peer.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isEngineError } from '../errors.js'
import type { Engine } from '../runtime/index.js'
import type { RetrievalMode } from '../seed/rules.js'
import type { SeedSearch } from '../seed/search.js'
import { objectiveTerms } from '../seed/tokenizer.js'
import { importStix } from '../stix/import.js'

export interface Judgement {
  domain: string
  objective: string
  relevant: { stix_id: string; external_id: string; name: string; grade: number }[]
}

export const JUDGEMENTS_PATH = new URL('../../src/seed/relevance/attack-judgements.json', import.meta.url)

export function readJudgements(path: string | URL = JUDGEMENTS_PATH): Judgement[] {
  return (JSON.parse(readFileSync(path, 'utf8')) as { queries: Judgement[] }).queries
}

/** The repository root (this file is core/{src,dist}/testing/seed-relevance.*). */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))

/** The one SHARED_DIR setting every test reads (default ../shared beside the repository). */
export const sharedDir = () => resolve(repoRoot, process.env.SHARED_DIR ?? '../shared')

export const attackDir = (dir = sharedDir()) => join(dir, 'data', 'stix', 'attack')

export const ATTACK_BUNDLES = ['ics-attack-18.1.json', 'mobile-attack-17.1.json']

export const attackPresent = (dir?: string) =>
  ATTACK_BUNDLES.every((f) => existsSync(join(attackDir(dir), f)))

export interface StixObject {
  id: string
  type: string
  name?: string
  description?: string
  x_mitre_aliases?: string[]
  aliases?: string[]
  [key: string]: unknown
}

/** The bundles' objects, as parsed JSON, one bundle per entry. */
export function readAttackBundles(dir?: string): { type: 'bundle'; id: string; objects: StixObject[] }[] {
  return ATTACK_BUNDLES.map((f) => JSON.parse(readFileSync(join(attackDir(dir), f), 'utf8')))
}

/**
 * The ATT&CK objects seed search offers as seeds: not relationships, not revoked or deprecated (seed
 * search keeps those in the graph but never proposes them), first occurrence of an id wins. The peer
 * indexes exactly these, so both rank the same objects.
 */
export function attackObjects(dir?: string): StixObject[] {
  const seen = new Map<string, StixObject>()
  for (const b of readAttackBundles(dir))
    for (const o of b.objects)
      if (o.type !== 'relationship' && o.revoked !== true && o.x_mitre_deprecated !== true && !seen.has(o.id))
        seen.set(o.id, o)
  return [...seen.values()]
}

/**
 * Imports both bundles with the product's STIX import (the same code the HTTP route runs) and returns
 * node element id -> stix id for the searchable nodes.
 */
export async function importAttack(
  engine: Engine,
  workspaceId: string,
  dir?: string,
): Promise<Map<string, string>> {
  for (const bundle of readAttackBundles(dir)) await importStix(engine, { bundle, workspaceId })
  return nodeProperty(engine, workspaceId, 'stix_id')
}

/** Every node of the workspace that has text property `name`: `node--ID` -> its value. */
export function nodeProperty(
  engine: Engine,
  workspaceId: string,
  name: string,
): Promise<Map<string, string>> {
  return engine.readGraph(workspaceId, (store) => {
    const key = store.names.lookup(name)
    const out = new Map<string, string>()
    for (const id of store.allNodeIds()) {
      const v = store.node(id)?.props.get(key)
      if (typeof v === 'string') out.set(`node--${id}`, v)
    }
    return out
  })
}

/** One objective answered: stix ids best first, or the 422 code that refused it. */
export type Answer = { ranked: string[] } | { error: string }
export type Ranker = (objective: string) => Promise<Answer>

export interface Figures {
  ndcg10: number
  recall10: number
  /** Objectives answered by a 422 (counted as empty result lists). */
  refused: number
  perQuery: { objective: string; ndcg10: number; recall10: number; error?: string }[]
}

/** nDCG@10 (gain 2^grade - 1, log2 discount) and recall@10 over the judged objects, averaged. */
export async function judge(judgements: readonly Judgement[], rank: Ranker): Promise<Figures> {
  const perQuery: Figures['perQuery'] = []
  for (const j of judgements) {
    const grades = new Map(j.relevant.map((r) => [r.stix_id, r.grade]))
    const answer = await rank(j.objective)
    const ranked = 'ranked' in answer ? answer.ranked.slice(0, 10) : []
    const dcg = ranked.reduce((s, id, i) => s + (2 ** (grades.get(id) ?? 0) - 1) / Math.log2(i + 2), 0)
    const ideal = [...grades.values()]
      .sort((a, b) => b - a)
      .slice(0, 10)
      .reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0)
    const found = ranked.filter((id) => grades.has(id)).length
    perQuery.push({
      objective: j.objective,
      ndcg10: ideal > 0 ? dcg / ideal : 0,
      recall10: grades.size > 0 ? found / Math.min(10, grades.size) : 0,
      ...('error' in answer ? { error: answer.error } : {}),
    })
  }
  const mean = (f: (q: (typeof perQuery)[number]) => number) =>
    perQuery.reduce((s, q) => s + f(q), 0) / Math.max(1, perQuery.length)
  return {
    ndcg10: mean((q) => q.ndcg10),
    recall10: mean((q) => q.recall10),
    refused: perQuery.filter((q) => q.error).length,
    perQuery,
  }
}

/** A ranker over the embedded API (top_k 10, what a caller is served). */
export function embeddedRanker(
  seed: SeedSearch,
  mode: RetrievalMode,
  workspace_id: string,
  stixOf: ReadonlyMap<string, string>,
): Ranker {
  return async (objective) => {
    try {
      const { candidates } = await seed.search({ objective, mode, top_k: 10, workspace_id })
      return { ranked: candidates.map((c) => stixOf.get(c.node_id) ?? c.node_id) }
    } catch (e) {
      if (!isEngineError(e)) throw e
      return { error: e.code }
    }
  }
}

/** The part of better-sqlite3's API the peer uses (so core does not depend on it). */
export interface SqliteDatabase {
  exec(sql: string): unknown
  prepare(sql: string): {
    run(...params: unknown[]): unknown
    all(...params: unknown[]): unknown[]
  }
  close(): unknown
}

/**
 * The peer: SQLite FTS5's own BM25 (`ORDER BY rank`, default unicode61 tokenizer, equal column weights)
 * over name, aliases and description of the same objects; the objective's FACTS terms OR-ed.
 */
export function fts5Ranker(db: SqliteDatabase, objects: readonly StixObject[]): Ranker {
  db.exec(
    'CREATE VIRTUAL TABLE IF NOT EXISTS attack USING fts5(stix_id UNINDEXED, name, aliases, description)',
  )
  const insert = db.prepare('INSERT INTO attack (stix_id, name, aliases, description) VALUES (?, ?, ?, ?)')
  for (const o of objects)
    insert.run(
      o.id,
      o.name ?? '',
      [...(o.x_mitre_aliases ?? []), ...(o.aliases ?? [])].join(' '),
      o.description ?? '',
    )
  const query = db.prepare('SELECT stix_id FROM attack WHERE attack MATCH ? ORDER BY rank LIMIT 10')
  return async (objective) => {
    const terms = objectiveTerms(objective)
    if (terms.length === 0) return { error: 'NO_TERMS' }
    const rows = query.all(terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ')) as {
      stix_id: string
    }[]
    return rows.length === 0 ? { error: 'NO_MATCH' } : { ranked: rows.map((r) => r.stix_id) }
  }
}
