import { randomBytes } from 'node:crypto'
import type { GraphStore } from '../graph/store.js'
import { envelope, sha256 } from './envelope.js'
import type { PageKeyLedger } from './ledgers.js'
import type { MutationHost } from './mutation.js'
import type { ObjectiveSearch } from './objective-search.js'
import { issuePageToken, objectiveBinding, readPageToken } from './page-token.js'
import type { RankSignals, RecallItem } from './recall.js'
import { appliedFilters, type RecallFilters } from './recall-filters.js'
import { type RecallGraph, runRecall } from './recall-query.js'
import type { RecallInput } from './request.js'
import { prepareRecallJson } from './response-json.js'
import type { MemoryContext, MemoryResponse } from './types.js'

/** Recent recalls for `trace` of kind recall (reads are not logged durably). */
const RECALLS_KEPT = 1024

export interface RecallTrace {
  context: MemoryContext
  objective: string
  /** The filters it applied (only those set). */
  filters: Partial<RecallFilters>
  /**
   * Each item's path as numbers: memory count, memory ids, relationship count, relationship ids. A thousand
   * recalls of a hundred items are kept: as id strings they held tens of megabytes of the heap.
   */
  ids: Float64Array
  evidence: string[][]
  /** What ranked each item, SIGNAL_FIELDS numbers per item (compactSignals). */
  signals: Float64Array
}

export interface RecallPath {
  memory_ids: string[]
  relationship_ids: string[]
  evidence_source_ids: string[]
}

/** A kept recall's paths as `trace` shows them. */
export function tracePaths(trace: RecallTrace): RecallPath[] {
  const out: RecallPath[] = []
  let at = 0
  const take = (prefix: string) => {
    const n = trace.ids[at++] as number
    const ids: string[] = []
    for (let i = 0; i < n; i++) ids.push(`${prefix}${trace.ids[at++]}`)
    return ids
  }
  for (const evidence of trace.evidence) {
    const memory_ids = take('node--')
    out.push({ memory_ids, relationship_ids: take('relationship--'), evidence_source_ids: evidence })
  }
  return out
}

const SIGNAL_FIELDS = 16

/** The items' signals as numbers (see RecallTrace): null as NaN, a boolean as 0/1. */
function compactSignals(items: readonly RecallItem[], signals: readonly (RankSignals | undefined)[]) {
  const out = new Float64Array(items.length * SIGNAL_FIELDS).fill(Number.NaN)
  for (const [i, item] of items.entries()) {
    const s = signals[i]
    const at = i * SIGNAL_FIELDS
    out[at] = Number(item.record.id.slice('node--'.length))
    out[at + 1] = item.score
    if (s === undefined) continue
    out.set(
      [
        s.lexical.value,
        s.lexical.contribution,
        s.graph.value,
        s.graph.contribution,
        s.relation.value,
        s.relation.contribution,
        s.seed ? 1 : 0,
        s.validity,
        s.degree.value,
        s.degree.factor,
        s.confidence.value ?? Number.NaN,
        s.confidence.factor,
        s.lexical_rank ?? Number.NaN,
        s.answer_kind,
      ],
      at + 2,
    )
  }
  return out
}

const orNull = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? null : v)

/** A kept recall's items as `trace` shows them: the memory, its score, and the signals that ranked it. */
export function traceSignals(trace: RecallTrace) {
  const out = []
  const v = trace.signals
  for (let at = 0; at < v.length; at += SIGNAL_FIELDS) {
    const n = (k: number) => v[at + k] as number
    out.push({
      memory_id: `node--${n(0)}`,
      score: n(1),
      signals: Number.isNaN(n(2))
        ? null
        : {
            lexical: { value: n(2), contribution: n(3) },
            graph: { value: n(4), contribution: n(5) },
            relation: { value: n(6), contribution: n(7) },
            seed: n(8) === 1,
            validity: { factor: n(9) },
            degree: { value: n(10), factor: n(11) },
            confidence: { value: orNull(n(12)), factor: n(13) },
            lexical_rank: orNull(n(14)),
            answer_kind: { factor: n(15) },
          },
    })
  }
  return out
}

/** The compact form of the items' paths (see RecallTrace). */
function compactPaths(items: readonly RecallItem[]): Float64Array {
  let size = 0
  for (const i of items)
    size += 2 + i.selection_path.memory_ids.length + i.selection_path.relationship_ids.length
  const ids = new Float64Array(size)
  let at = 0
  for (const { selection_path: p } of items) {
    ids[at++] = p.memory_ids.length
    for (const id of p.memory_ids) ids[at++] = Number(id.slice('node--'.length))
    ids[at++] = p.relationship_ids.length
    for (const id of p.relationship_ids) ids[at++] = Number(id.slice('relationship--'.length))
  }
  return ids
}

/** What recall needs of the engine: reads, objective seeds, the time, and a write for its page-token key. */
export interface RecallHost extends MutationHost {
  readGraph<T>(workspaceId: string, fn: (store: GraphStore) => T): Promise<T>
  /** The published graph as it was recorded at `atMs` (recall's `as_of`), read through record history. */
  asRecorded(workspaceId: string, store: GraphStore, atMs: number): RecallGraph
  /** The text index recall takes its objective seeds from. */
  seed(): ObjectiveSearch
}

/** The recall operation: the ranked walk (recall-query.ts), paging tokens, and the recalls kept for trace. */
export class RecallOperation {
  private readonly recalls = new Map<string, RecallTrace>()
  private pageKeyReady: Promise<string> | null = null

  constructor(
    private readonly host: RecallHost,
    private readonly pageKey: PageKeyLedger,
  ) {}

  /** One as-recorded view per published graph a recall reads (its readers memoise what they resolve). */
  private recordedView(workspace: string, atMs: number): (store: GraphStore) => RecallGraph {
    const views = new WeakMap<GraphStore, RecallGraph>()
    return (store) => {
      let view = views.get(store)
      if (view === undefined) {
        view = this.host.asRecorded(workspace, store, atMs)
        views.set(store, view)
      }
      return view
    }
  }

  async run(
    input: RecallInput,
    context: MemoryContext,
    options: { signal?: AbortSignal | undefined },
  ): Promise<MemoryResponse> {
    const started = performance.now()
    const workspace = context.workspace_id
    const { limits } = input
    // `as_of`: the recall the workspace would have answered then, "now" included (expiry and validity).
    const asOf = input.filters.as_of === null ? null : Date.parse(input.filters.as_of)
    const nowMs = asOf === null ? this.host.now() : Math.min(this.host.now(), asOf)
    const filters = appliedFilters(input.filters)
    const binding = objectiveBinding(input.objective, input.seed_ids, filters)
    const offset =
      input.page_token === null
        ? 0
        : readPageToken(await this.pageSecret(workspace), input.page_token, workspace, binding)
    const { walked, dense, hits, filteredOut } = await runRecall(
      this.host.seed(),
      this.host.readGraph.bind(this.host),
      {
        workspace,
        objective: input.objective,
        seedIds: input.seed_ids,
        limits,
        offset,
        nowMs,
        deadline: started + limits.timeout_ms,
        signal: options.signal,
        filters: input.filters,
        ...(asOf === null ? {} : { view: this.recordedView(workspace, asOf) }),
      },
    )
    if (hits === 0 && !dense && filteredOut === 0) walked.outcomes.push('semantic_provider_unavailable')
    const recallId = `recall--${sha256(
      JSON.stringify([
        workspace,
        input.objective,
        input.seed_ids,
        filters,
        limits,
        offset,
        nowMs,
        randomBytes(8).toString('hex'),
      ]),
    ).slice(0, 24)}`
    this.keep(`${workspace}\u0000${recallId}`, {
      context,
      objective: input.objective,
      filters,
      ids: compactPaths(walked.items),
      evidence: walked.items.map((i) => i.record.provenance.map((p) => p.source_id)),
      signals: compactSignals(walked.items, walked.signals),
    })
    const truncated = walked.outcomes.length > 0 || walked.next_offset !== null
    const response = envelope('recall', {
      recall_id: recallId,
      items: walked.items,
      relationships: walked.relationships,
      completeness: { complete: !truncated, truncated, outcomes: walked.outcomes },
      usage: {
        items: walked.items.length,
        depth: walked.depth,
        payload_bytes: walked.payload_bytes,
        cost: walked.cost,
        filters,
        elapsed_ms: Math.round((performance.now() - started) * 1000) / 1000,
      },
      next_page_token:
        walked.next_offset === null
          ? null
          : issuePageToken(await this.pageSecret(workspace), workspace, binding, walked.next_offset),
    })
    return prepareRecallJson(response, {
      items: walked.items,
      itemsJson: walked.itemsJson,
      relationships: walked.relationships,
      relationshipsJson: walked.relationshipsJson,
    })
  }

  /** The recall a `trace` of kind recall names, if it is still kept. */
  traceOf(workspace: string, recallId: string): RecallTrace | undefined {
    return this.recalls.get(`${workspace}\u0000${recallId}`)
  }

  private keep(key: string, trace: RecallTrace): void {
    this.recalls.set(key, trace)
    if (this.recalls.size > RECALLS_KEPT) this.recalls.delete(this.recalls.keys().next().value as string)
  }

  private pageSecret(workspace: string): Promise<string> {
    if (this.pageKey.key !== null) return Promise.resolve(this.pageKey.key)
    this.pageKeyReady ??= this.host
      .transact(workspace, (_tx, _store, ledger) => {
        if (this.pageKey.key === null)
          ledger.write(this.pageKey.name, { key: randomBytes(32).toString('hex') })
      })
      .then(() => this.pageKey.key as string)
      .finally(() => {
        this.pageKeyReady = null
      })
    return this.pageKeyReady
  }
}
