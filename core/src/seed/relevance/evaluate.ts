/**
 * Relevance evaluation for seed search over ATT&CK ICS + Mobile. Test and benchmark code only: the
 * bundles are read from SHARED_DIR (never shipped, never copied into the repo).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Engine } from '../../engine/engine.js'
import { isEngineError } from '../../errors.js'
import type { PropertyValue } from '../../graph/types.js'
import type { RetrievalMode } from '../rules.js'
import type { SeedSearch } from '../search.js'

export interface Judgement {
  domain: string
  objective: string
  relevant: { stix_id: string; external_id: string; name: string; grade: number }[]
}

export const JUDGEMENTS_PATH = new URL('../../../src/seed/relevance/attack-judgements.json', import.meta.url)

export function readJudgements(path: string | URL = JUDGEMENTS_PATH): Judgement[] {
  return (JSON.parse(readFileSync(path, 'utf8')) as { queries: Judgement[] }).queries
}

export const attackDir = (sharedDir = process.env.SHARED_DIR ?? '/work/shared') =>
  join(resolve(sharedDir), 'data', 'stix', 'attack')

export const ATTACK_BUNDLES = ['ics-attack-18.1.json', 'mobile-attack-17.1.json']

export const attackPresent = (sharedDir?: string) =>
  ATTACK_BUNDLES.every((f) => existsSync(join(attackDir(sharedDir), f)))

interface StixObject {
  id: string
  type: string
  name?: string
  description?: string
  source_ref?: string
  target_ref?: string
  relationship_type?: string
  x_mitre_aliases?: string[]
  aliases?: string[]
  external_references?: { source_name?: string; external_id?: string }[]
}

/**
 * TEST-DATA LOADER (not the product's STIX import): one node per ATT&CK object, labelled with its type,
 * with stix_id, name, description, external_id (mitre-attack) and aliases; one relationship per STIX
 * relationship so degree is realistic. Returns stix_id -> node id.
 */
export async function loadAttack(
  engine: Engine,
  workspace: string,
  sharedDir?: string,
): Promise<Map<string, number>> {
  const objects = new Map<string, StixObject>()
  for (const f of ATTACK_BUNDLES) {
    const bundle = JSON.parse(readFileSync(join(attackDir(sharedDir), f), 'utf8')) as {
      objects: StixObject[]
    }
    for (const o of bundle.objects) if (!objects.has(o.id)) objects.set(o.id, o)
  }
  const { value } = await engine.transact(workspace, (tx, store) => {
    const ids = new Map<string, number>()
    const key = (k: string) => store.names.id(k)
    for (const o of objects.values()) {
      if (o.type === 'relationship') continue
      const props = new Map<number, PropertyValue>([[key('stix_id'), o.id]])
      if (o.name) props.set(key('name'), o.name)
      if (o.description) props.set(key('description'), o.description)
      const ext = o.external_references?.find((r) => r.source_name?.startsWith('mitre-'))?.external_id
      if (ext) props.set(key('external_id'), ext)
      const aliases = o.x_mitre_aliases ?? o.aliases
      if (aliases?.length) props.set(key('aliases'), aliases)
      ids.set(o.id, tx.createNode([key(o.type)], props))
    }
    for (const o of objects.values()) {
      if (o.type !== 'relationship' || !o.source_ref || !o.target_ref) continue
      const s = ids.get(o.source_ref)
      const t = ids.get(o.target_ref)
      if (s !== undefined && t !== undefined)
        tx.createRelationship(key(o.relationship_type ?? 'related-to'), s, t, new Map())
    }
    return ids
  })
  return value
}

export interface ModeFigures {
  mode: RetrievalMode
  ndcg10: number
  recall10: number
  /** Objectives answered by a 422 (counted as empty result lists). */
  errors: number
  perQuery: { objective: string; ndcg10: number; recall10: number; error?: string }[]
}

/**
 * nDCG@10 (gain 2^grade - 1, log2 discount) and recall@10 over the judged nodes, averaged. With `topK` 10
 * this is what a caller is served (a 422 counts as an empty list: natural-language objectives often
 * trip FACTS' OVERBROAD rule); with a large `topK` it measures the ranking alone (first 10 of the list).
 */
export async function evaluate(
  seed: SeedSearch,
  judgements: Judgement[],
  stixToNode: ReadonlyMap<string, number>,
  mode: RetrievalMode,
  workspace_id: string,
  topK = 10,
): Promise<ModeFigures> {
  const perQuery: ModeFigures['perQuery'] = []
  for (const j of judgements) {
    const grades = new Map<string, number>()
    for (const r of j.relevant) {
      const id = stixToNode.get(r.stix_id)
      if (id !== undefined) grades.set(`node--${id}`, r.grade)
    }
    let ranked: string[] = []
    let error: string | undefined
    try {
      const { candidates } = await seed.search({ objective: j.objective, mode, top_k: topK, workspace_id })
      ranked = candidates.slice(0, 10).map((c) => c.node_id)
    } catch (e) {
      if (!isEngineError(e)) throw e
      error = e.code
    }
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
      ...(error ? { error } : {}),
    })
  }
  const mean = (f: (q: (typeof perQuery)[number]) => number) =>
    perQuery.reduce((s, q) => s + f(q), 0) / Math.max(1, perQuery.length)
  return {
    mode,
    ndcg10: mean((q) => q.ndcg10),
    recall10: mean((q) => q.recall10),
    errors: perQuery.filter((q) => q.error).length,
    perQuery,
  }
}
