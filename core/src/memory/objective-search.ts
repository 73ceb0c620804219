import type { GraphStore } from '../graph/store.js'
import type { EmbeddingProvider } from '../seed/embeddings/provider.js'

/** One objective hit: which signals selected the memory and how strongly (each 0..1). */
export interface ObjectiveHit {
  id: number
  lexical: number
  dense: number
  score: number
  matched: string[]
}

/** An objective word the workspace does not have, read as a near term it does have. */
export interface TermCorrection {
  word: string
  term: string
}

export interface ObjectiveHits {
  hits: ObjectiveHit[]
  /** Whether an embedding provider took part. */
  dense: boolean
  /** Objective words read as near indexed terms. */
  corrections: TermCorrection[]
  /** The search terms used, corrections applied. */
  terms: string[]
}

/** What recall needs of a text index: the memories (and memory relationships) that match an objective. */
export interface ObjectiveSearch {
  objectiveHits(
    workspaceId: string,
    objective: string,
    limit: number,
    accept: (store: GraphStore, id: number) => boolean,
    signal?: AbortSignal,
  ): Promise<ObjectiveHits>
  /** Memory relationships whose kind, text properties or evidence match the search terms, best first. */
  relationshipHits(
    workspaceId: string,
    terms: readonly string[],
    limit: number,
    accept: (store: GraphStore, id: number) => boolean,
  ): Promise<{ id: number; score: number }[]>
  /** The embedding provider, when one is set: word-vector neighbours widen the relation words. */
  readonly embeddings: { readonly provider: EmbeddingProvider | null }
}
