import type { ProcedureDef } from '../cypher/procedures/registry.js'
import { EngineError } from '../errors.js'
import { DomainGates } from '../gates/domain-gates.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import type { GraphStore } from '../graph/store.js'
import type { NodeRecord } from '../graph/types.js'
import type { DerivedIndex, GraphAccess } from '../kernel/types.js'
import type {
  ObjectiveHit,
  ObjectiveHits,
  ObjectiveSearch,
  TermCorrection,
} from '../memory/objective-search.js'
import { type Bm25Index, bestOf, lexicalScore } from './bm25-index.js'
import { seedProcedures } from './cypher-procedures.js'
import { EmbeddingSlot, normalizeInPlace } from './embeddings/provider.js'
import {
  degreeSignal,
  type Fused,
  fuse,
  HYBRID_DENSE_SHARE,
  type LexicalParts,
  rationale,
  type Signals,
} from './fusion.js'
import { nodeElementId, nodeFields, nodeSignals, nodeTitle } from './node-text.js'
import { objectiveIds, phraseEvidence } from './phrase.js'
import {
  commonLimit,
  noTermsError,
  overbroadTerms,
  type ParsedSeedRequest,
  parseSeedRequest,
  type SeedRequest,
  selectSeeds,
  unprocessable,
} from './rules.js'
import { SeedIndex, type WorkspaceSeedIndex } from './seed-index.js'
import { termWords } from './tokenizer.js'

export interface SeedCandidate {
  node_id: string
  score: number
  explanation: { rationale: string; source_refs: string[]; boundary_notes: string[] }
  /** Optional display fields (not in the spec's candidate): the node's labels and a short title. */
  labels?: string[]
  title?: string
}

/** Raw BM25F points an exact identifier match adds (more than any word match reaches on ATT&CK). */
export const EXACT_ID_POINTS = 12
/** Lexical candidates re-ranked with phrase, dense and graph signals: the best max(top_k x 10, this). */
export const RERANK_POOL = 200

export interface SeedSearchResult {
  candidates: SeedCandidate[]
}

export interface SeedSearchOptions {
  /** Where dense vectors come from; an empty slot leaves semantic/vector unavailable (503). */
  embeddings?: EmbeddingSlot | undefined
  /** Dense share of hybrid's content slot (default HYBRID_DENSE_SHARE). */
  hybridDenseShare?: number | undefined
  /** Domain gates for the enterprise profiles (cti, fimi, crisis); without them those profiles are refused. */
  gates?: Pick<DomainGates, 'checkProfile'> | undefined
}

export interface SearchCallOptions {
  signal?: AbortSignal | undefined
}

/** A scored node before selection (its explanation is written only if it is chosen). */
interface Scored {
  id: number
  node_id: string
  score: number
  fused: Fused
  signals: Signals
  matched: string[]
  parts: LexicalParts | null
}

const NOT_EVIDENCE = 'a seed score ranks retrieval relevance; it is not evidence'

/**
 * Natural-language seed search over graph nodes: the embedded API behind `POST /v1/seed/search`.
 * `SeedSearch.attach(engine)` registers its derived index with the engine; `search` validates (400s),
 * scores and applies the 422 rules. Domain-profile gates run between validation and search, here, so every
 * door applies them.
 */
export class SeedSearch implements ObjectiveSearch {
  readonly embeddings: EmbeddingSlot
  private readonly index: SeedIndex
  private readonly denseShare: number
  private readonly gates: Pick<DomainGates, 'checkProfile'>

  private constructor(
    private readonly engine: Pick<GraphAccess, 'readGraph'>,
    options: SeedSearchOptions,
  ) {
    this.gates = options.gates ?? new DomainGates()
    this.embeddings = options.embeddings ?? new EmbeddingSlot()
    this.index = new SeedIndex(this.embeddings)
    this.denseShare = options.hybridDenseShare ?? HYBRID_DENSE_SHARE
  }

  static attach(
    engine: Pick<GraphAccess, 'readGraph'> & { registerDerivedIndex(index: DerivedIndex): void },
    options: SeedSearchOptions = {},
  ) {
    const search = new SeedSearch(engine, options)
    engine.registerDerivedIndex(search.index)
    // Index the recovered graph in the background; a search before it is done catches up itself.
    search.warm().catch(() => {})
    return search
  }

  /** Neo4j's fulltext and vector index query procedures, answered by this index (cypher-procedures.ts). */
  cypherProcedures(): ProcedureDef[] {
    return seedProcedures(this.index)
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

  /** Settles once every workspace's index has caught up with the graph (it is built lazily). */
  warm(): Promise<void> {
    return this.index.warm()
  }

  /** Nodes whose search entry is not current yet (the next search, or `warm`, indexes them). */
  staleNodes(workspaceId = DEFAULT_WORKSPACE_ID): number {
    return this.index.staleNodes(workspaceId)
  }

  /** What background indexing has left over every workspace (for /metrics: a restart's rebuild shows progress). */
  backlog(): { index: number; embeddings: number } {
    return this.index.backlog()
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
    // FACTS §4 order: the 400s (parsing), then the domain gates, then search and its 422s.
    this.gates.checkProfile(req.profile)
    const words = termWords(req.objective)
    if (words.size === 0) throw noTermsError()
    const workspaceId = req.workspaceId ?? DEFAULT_WORKSPACE_ID
    const ws = this.index.workspace(workspaceId)
    const dense = req.mode === 'semantic' || req.mode === 'vector'
    const provider = this.embeddings.provider
    if (dense && provider === null)
      throw new EngineError(
        'SEMANTIC_PROVIDER_UNAVAILABLE',
        `${req.mode} retrieval needs an embedding provider: ${this.embeddings.detail}`,
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
    return this.engine.readGraph(workspaceId, (store) => {
      const scored = this.score(req, words, ws, store, query)
      scored.sort((a, b) => b.score - a.score || (a.node_id < b.node_id ? -1 : a.node_id > b.node_id ? 1 : 0))
      // Explanations and display fields for the chosen few only.
      return {
        candidates: selectSeeds(scored, req.topK).map((c): SeedCandidate => {
          const node = store.node(c.id) as NodeRecord
          const title = nodeTitle(nodeFields(store, node))
          return {
            node_id: c.node_id,
            score: c.score,
            explanation: {
              rationale: rationale(req.mode, c.fused, c.signals, matchedWords(c.matched, words), c.parts),
              source_refs: nodeSignals(store, node).sourceRefs,
              boundary_notes: [...notes],
            },
            labels: node.labels.map((l) => store.names.name(l)),
            ...(title === undefined ? {} : { title }),
          }
        }),
      }
    })
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
  ): Promise<ObjectiveHits> {
    const ws = this.index.workspace(workspaceId)
    const provider = this.embeddings.provider
    if (ws === undefined) return { hits: [], dense: provider !== null, corrections: [], terms: [] }
    let query: Float32Array | null = null
    if (provider !== null) {
      await this.index.flush(ws, signal)
      const [q] = provider.embedSync
        ? provider.embedSync([objective])
        : await provider.embed([objective], signal)
      if (q !== undefined && normalizeInPlace(q)) query = q
    }
    const { terms, corrections } = correctedTerms(objective, ws.bm25)
    return this.engine.readGraph(workspaceId, (store) => {
      if (query === null) {
        const top = ws.bm25.top(terms, limit, (id) => accept(store, id))
        const hits = top.map(({ doc, raw }) => {
          const lexical = lexicalScore(raw)
          return { id: doc, lexical, dense: 0, score: lexical, matched: [] as string[] }
        })
        return { hits, dense: false, corrections, terms }
      }
      const pool = new Map<number, ObjectiveHit>()
      for (const [id, raw] of ws.bm25.search(terms))
        pool.set(id, { id, lexical: lexicalScore(raw), dense: 0, score: 0, matched: [] })
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
      const chosen = hits.slice(0, limit)
      for (const hit of chosen) hit.matched = ws.bm25.explain(hit.id, terms).matched
      return { hits: chosen, dense: query !== null, corrections, terms }
    })
  }

  /**
   * Memory relationships whose kind, text properties or evidence match the search terms (`objectiveHits`
   * returns them, corrected), best first, at most `limit`, among those `accept` admits.
   */
  async relationshipHits(
    workspaceId: string,
    terms: readonly string[],
    limit: number,
    accept: (store: GraphStore, id: number) => boolean,
  ): Promise<{ id: number; score: number }[]> {
    const ws = this.index.workspace(workspaceId)
    if (ws === undefined || ws.relations.size === 0) return []
    return this.engine.readGraph(workspaceId, (store) =>
      ws.relations
        .top(terms, limit, (id) => accept(store, id))
        .map(({ doc, raw }) => ({ id: doc, score: lexicalScore(raw) })),
    )
  }

  /** Scores the candidates (synchronously, on one published version of the graph). */
  private score(
    req: ParsedSeedRequest,
    words: ReadonlyMap<string, string>,
    ws: WorkspaceSeedIndex,
    store: GraphStore,
    query: Float32Array | null,
  ): Scored[] {
    const terms = [...words.keys()]
    const pool = new Map<
      number,
      { lexical: number | null; parts: LexicalParts | null; dense: number | null; matched: string[] }
    >()
    if (req.mode === 'semantic' || req.mode === 'vector') {
      for (const n of ws.vectors?.nearest(query as Float32Array, req.topK * 10) ?? [])
        pool.set(n.id, { lexical: null, parts: null, dense: n.similarity, matched: [] })
    } else {
      const exact = objectiveIds(req.objective, ws.bm25)
      const frequencies = terms.map((term) => ({ term, df: ws.bm25.documentFrequency(term) }))
      if (exact.size === 0) {
        const shown = frequencies.map((f) => ({ term: words.get(f.term) ?? f.term, df: f.df }))
        const overbroad = overbroadTerms(shown, ws.bm25.size, req.topK)
        if (overbroad !== null) throw overbroad
      }
      const hits = ws.bm25.search(terms, boosterTerms(frequencies, commonLimit(ws.bm25.size, req.topK)))
      for (const doc of exact.keys()) hits.set(doc, (hits.get(doc) ?? 0) + EXACT_ID_POINTS)
      // Rank by BM25F, keep the best; phrase evidence and the dense and graph signals re-rank those.
      const phrase = phraseEvidence(terms, ws.bm25)
      for (const id of bestOf(hits, Math.max(req.topK * 10, RERANK_POOL))) {
        const hit = ws.bm25.explain(id, terms)
        const ids = exact.get(id) ?? []
        const parts: LexicalParts = {
          name: hit.fields[0] ?? 0,
          labels: hit.fields[1] ?? 0,
          body: hit.fields[2] ?? 0,
          context: hit.fields[3] ?? 0,
          phrase: phrase(id),
          id: ids.length > 0 ? EXACT_ID_POINTS : 0,
        }
        const sim = query === null ? undefined : ws.vectors?.similarity(id, query)
        pool.set(id, {
          lexical: lexicalScore(hit.raw + parts.id + parts.phrase),
          parts,
          dense: query === null ? null : Math.max(0, sim ?? 0),
          matched: [...hit.matched, ...ids],
        })
      }
    }
    const maxDegree = req.mode === 'full_text' || req.mode === 'vector' ? 0 : ws.maxDegree()
    const out: Scored[] = []
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
        id,
        node_id: nodeElementId(id),
        score: fused.score,
        fused,
        signals,
        matched: p.matched,
        parts: p.parts,
      })
    }
    return out
  }
}

/**
 * Postings of common terms walked in full at most. Beyond it, common terms rank the documents rarer terms
 * found but bring in none of their own (`Bm25Index.search`'s boosters): at 100k nodes a common term has
 * tens of thousands of postings. Under it every term scores every document that has it, as BM25 does: a
 * common term is not a weak one (in 15% of the nodes its idf is still about 1.9, against about 6 for a
 * term in one node), and a node with three of them can be the answer ("listing which apps are installed
 * on the phone": "listing", "apps" and "installed" are each in 15-18% of ATT&CK's nodes, and Software
 * Discovery has no "phone"; tuning part, hybrid nDCG@10 0.795 -> 0.816, full_text 0.776 -> 0.794).
 */
export const COMMON_WALK_POSTINGS = 20_000

/** The terms that only boost: the common ones, when walking all their postings would cost too much. */
export function boosterTerms(
  frequencies: readonly { term: string; df: number }[],
  limit: number,
): Set<string> {
  const common = frequencies.filter((f) => f.df > limit)
  const postings = common.reduce((sum, f) => sum + f.df, 0)
  return postings <= COMMON_WALK_POSTINGS ? new Set() : new Set(common.map((f) => f.term))
}

/** Shorter terms are not corrected: one edit turns most four-letter words into another word. */
export const CORRECT_MIN_CHARS = 5

/**
 * The objective's search terms, each one no document has (and long enough to be a misspelling rather than an
 * abbreviation, without digits) replaced by the nearest indexed term (`Bm25Index.nearTerm`).
 */
export function correctedTerms(
  objective: string,
  bm25: Bm25Index,
): { terms: string[]; corrections: TermCorrection[] } {
  const corrections: TermCorrection[] = []
  const terms: string[] = []
  for (const [term, word] of termWords(objective)) {
    const near =
      term.length >= CORRECT_MIN_CHARS && !/\p{N}/u.test(term) && bm25.documentFrequency(term) === 0
        ? bm25.nearTerm(term)
        : null
    if (near !== null) corrections.push({ word, term: near })
    if (!terms.includes(near ?? term)) terms.push(near ?? term)
  }
  return { terms, corrections }
}

/** Matched stems as the objective wrote them; an identifier also matched as a word is listed once. */
function matchedWords(matched: readonly string[], words: ReadonlyMap<string, string>): string[] {
  return [...new Set(matched.map((m) => words.get(m) ?? m))].filter(
    (m, i, all) => all.findIndex((o) => o.toLowerCase() === m.toLowerCase()) === i,
  )
}
