import type { Engine } from '../engine/engine.js'
import { EngineError } from '../errors.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import type { GraphStore } from '../graph/store.js'
import { lexicalScore } from './bm25-index.js'
import { EmbeddingSlot, normalizeInPlace } from './embeddings/provider.js'
import { degreeSignal, fuse, HYBRID_DENSE_SHARE, rationale, type Signals } from './fusion.js'
import { nodeElementId, nodeSignals } from './node-text.js'
import {
  noTermsError,
  overbroadError,
  type ParsedSeedRequest,
  parseSeedRequest,
  type SeedRequest,
  selectSeeds,
  unprocessable,
} from './rules.js'
import { SeedIndex, type WorkspaceSeedIndex } from './seed-index.js'
import { objectiveTerms } from './tokenizer.js'

export interface SeedCandidate {
  node_id: string
  score: number
  explanation: { rationale: string; source_refs: string[]; boundary_notes: string[] }
}

export interface SeedSearchResult {
  candidates: SeedCandidate[]
}

export interface SeedSearchOptions {
  /** Where dense vectors come from; an empty slot leaves semantic/vector unavailable (503). */
  embeddings?: EmbeddingSlot | undefined
  /** Dense share of hybrid's content slot (default HYBRID_DENSE_SHARE). */
  hybridDenseShare?: number | undefined
}

export interface SearchCallOptions {
  signal?: AbortSignal | undefined
}

/** One objective hit for memory recall: which signals selected it and how strongly (each 0..1). */
export interface ObjectiveHit {
  id: number
  lexical: number
  dense: number
  score: number
  matched: string[]
}

const NOT_EVIDENCE = 'a seed score ranks retrieval relevance; it is not evidence'

/**
 * Natural-language seed search over graph nodes: the embedded API behind `POST /v1/seed/search`.
 * `SeedSearch.attach(engine)` registers its derived index with the engine; `search` validates (400s),
 * scores and applies the 422 rules. Domain-profile gates are the caller's (the HTTP plugin runs them
 * between validation and search).
 */
export class SeedSearch {
  readonly embeddings: EmbeddingSlot
  private readonly index: SeedIndex
  private readonly denseShare: number

  private constructor(
    private readonly engine: Pick<Engine, 'readGraph'>,
    options: SeedSearchOptions,
  ) {
    this.embeddings = options.embeddings ?? new EmbeddingSlot()
    this.index = new SeedIndex(this.embeddings)
    this.denseShare = options.hybridDenseShare ?? HYBRID_DENSE_SHARE
  }

  static attach(engine: Pick<Engine, 'readGraph' | 'registerDerivedIndex'>, options: SeedSearchOptions = {}) {
    const search = new SeedSearch(engine, options)
    engine.registerDerivedIndex(search.index)
    return search
  }

  /** Index sizes per workspace, for operators and benchmarks. */
  stats(workspaceId = DEFAULT_WORKSPACE_ID) {
    const ws = this.index.workspace(workspaceId)
    return {
      documents: ws?.bm25.size ?? 0,
      terms: ws?.bm25.termCount ?? 0,
      vectors: ws?.vectors?.size ?? 0,
      pending_embeddings: ws?.pending.size ?? 0,
      embedding_provider: this.embeddings.provider?.id ?? null,
      embedding_state: this.embeddings.state,
    }
  }

  /** Waits until every indexed node of the workspace has its vector (after a provider arrived). */
  async embeddingsSettled(workspaceId = DEFAULT_WORKSPACE_ID): Promise<void> {
    const ws = this.index.workspace(workspaceId)
    if (ws !== undefined) await this.index.flush(ws)
  }

  search(request: SeedRequest, options: SearchCallOptions = {}): Promise<SeedSearchResult> {
    return this.run(parseSeedRequest(request), options)
  }

  async run(req: ParsedSeedRequest, options: SearchCallOptions = {}): Promise<SeedSearchResult> {
    const terms = objectiveTerms(req.objective)
    if (terms.length === 0) throw noTermsError()
    const workspaceId = req.workspaceId ?? DEFAULT_WORKSPACE_ID
    const ws = this.index.workspace(workspaceId)
    const dense = req.mode === 'semantic' || req.mode === 'vector'
    const provider = this.embeddings.provider
    if (dense && provider === null)
      throw new EngineError(
        'SEMANTIC_PROVIDER_UNAVAILABLE',
        `${req.mode} retrieval needs an embedding provider: ${this.embeddings.detail}`,
        'unavailable',
      )
    let query: Float32Array | null = null
    if (provider !== null && ws !== undefined && req.mode !== 'full_text') {
      await this.index.flush(ws, options.signal)
      const [q] = provider.embedSync
        ? provider.embedSync([req.objective])
        : await provider.embed([req.objective], options.signal)
      if (q !== undefined && normalizeInPlace(q)) query = q
    }
    if (dense && query === null && ws !== undefined)
      throw unprocessable(
        'NO_SEED',
        `no word of the objective is known to the embedding model ${provider?.id}`,
        'rephrase with common words or use mode full_text',
      )
    const notes = [NOT_EVIDENCE]
    if (dense)
      notes.push(`dense similarity from ${provider?.id}: exact cosine, nearest ${req.topK * 10} nodes`)
    else if (req.mode === 'hybrid')
      notes.push(
        query === null
          ? `dense retrieval unavailable (${this.embeddings.detail}); hybrid used lexical and graph signals only`
          : `dense similarity from ${provider?.id} joined lexical scoring`,
      )
    if (ws === undefined) return { candidates: selectSeeds([], req.topK) }
    const scored = await this.engine.readGraph(workspaceId, (store) =>
      this.score(req, terms, ws, store, query),
    )
    scored.sort((a, b) => b.score - a.score || (a.node_id < b.node_id ? -1 : a.node_id > b.node_id ? 1 : 0))
    return {
      candidates: selectSeeds(scored, req.topK).map((c) => ({
        ...c,
        explanation: { ...c.explanation, boundary_notes: [...notes] },
      })),
    }
  }

  /**
   * Objective hits among the nodes `accept` admits, best first (score, then id), at most `limit`: BM25 over
   * the indexed text, joined by cosine similarity when an embedding provider is configured. No 422 rules:
   * memory recall bounds its answer itself. `dense` says whether a provider took part.
   */
  async objectiveHits(
    workspaceId: string,
    objective: string,
    limit: number,
    accept: (store: GraphStore, id: number) => boolean,
    signal?: AbortSignal,
  ): Promise<{ hits: ObjectiveHit[]; dense: boolean }> {
    const ws = this.index.workspace(workspaceId)
    const provider = this.embeddings.provider
    if (ws === undefined) return { hits: [], dense: provider !== null }
    let query: Float32Array | null = null
    if (provider !== null) {
      await this.index.flush(ws, signal)
      const [q] = provider.embedSync
        ? provider.embedSync([objective])
        : await provider.embed([objective], signal)
      if (q !== undefined && normalizeInPlace(q)) query = q
    }
    const terms = objectiveTerms(objective)
    return this.engine.readGraph(workspaceId, (store) => {
      if (query === null) {
        const top = ws.bm25.top(terms, limit, (id) => accept(store, id))
        const hits = top.map(({ doc, raw }) => {
          const lexical = lexicalScore(raw)
          return { id: doc, lexical, dense: 0, score: lexical, matched: [] as string[] }
        })
        return { hits, dense: false }
      }
      const pool = new Map<number, ObjectiveHit>()
      for (const [id, hit] of ws.bm25.search(terms))
        pool.set(id, { id, lexical: lexicalScore(hit.raw), dense: 0, score: 0, matched: hit.matched })
      if (query !== null && ws.vectors !== null) {
        for (const n of ws.vectors.nearest(query, limit * 4)) {
          const hit = pool.get(n.id)
          if (hit === undefined)
            pool.set(n.id, { id: n.id, lexical: 0, dense: n.similarity, score: 0, matched: [] })
          else hit.dense = n.similarity
        }
        for (const hit of pool.values())
          if (hit.dense === 0 && hit.lexical > 0)
            hit.dense = Math.max(0, ws.vectors.similarity(hit.id, query) ?? 0)
      }
      const hits: ObjectiveHit[] = []
      for (const hit of pool.values()) {
        if (!accept(store, hit.id)) continue
        hit.score =
          query === null ? hit.lexical : (1 - this.denseShare) * hit.lexical + this.denseShare * hit.dense
        hits.push(hit)
      }
      hits.sort((a, b) => b.score - a.score || a.id - b.id)
      return { hits: hits.slice(0, limit), dense: query !== null }
    })
  }

  /** Scores every candidate (synchronously, on one published version of the graph). */
  private score(
    req: ParsedSeedRequest,
    terms: string[],
    ws: WorkspaceSeedIndex,
    store: GraphStore,
    query: Float32Array | null,
  ): SeedCandidate[] {
    const pool = new Map<number, { lexical: number | null; dense: number | null; matched: string[] }>()
    if (req.mode === 'semantic' || req.mode === 'vector') {
      for (const n of ws.vectors?.nearest(query as Float32Array, req.topK * 10) ?? [])
        pool.set(n.id, { lexical: null, dense: n.similarity, matched: [] })
    } else {
      // One term alone in more than top_k x 10 documents decides OVERBROAD before any scoring.
      const widest = Math.max(...terms.map((t) => ws.bm25.documentFrequency(t)))
      if (req.threshold === 0 && widest > req.topK * 10) throw overbroadError(widest, req.topK, true)
      const hits = ws.bm25.search(terms)
      // Every hit scores >= 0, so with no threshold the count alone decides OVERBROAD: skip the scoring.
      if (req.threshold === 0 && hits.size > req.topK * 10) throw overbroadError(hits.size, req.topK)
      for (const [id, hit] of hits) {
        const sim = query === null ? undefined : ws.vectors?.similarity(id, query)
        pool.set(id, {
          lexical: lexicalScore(hit.raw),
          dense: query === null ? null : Math.max(0, sim ?? 0),
          matched: hit.matched,
        })
      }
    }
    const maxDegree = req.mode === 'full_text' || req.mode === 'vector' ? 0 : ws.maxDegree()
    const out: SeedCandidate[] = []
    for (const [id, p] of pool) {
      const node = store.node(id)
      if (node === undefined) continue
      const g = nodeSignals(store, node)
      const signals: Signals = {
        lexical: p.lexical,
        dense: p.dense === null ? null : Math.max(0, p.dense),
        degree: degreeSignal(g.degree, maxDegree),
        confidence: g.confidence,
        status: g.status,
      }
      const fused = fuse(req.mode, signals, this.denseShare)
      if (fused.score < req.threshold) continue
      out.push({
        node_id: nodeElementId(id),
        score: fused.score,
        explanation: {
          rationale: rationale(req.mode, fused, signals, p.matched),
          source_refs: g.sourceRefs,
          boundary_notes: [],
        },
      })
    }
    return out
  }
}
