import type { GraphStore } from '../graph/store.js'

/** One objective hit: which signals selected the memory and how strongly (each 0..1). */
export interface ObjectiveHit {
  id: number
  lexical: number
  dense: number
  score: number
  matched: string[]
}

/** What recall needs of a text index: the memories that match an objective, best first. */
export interface ObjectiveSearch {
  objectiveHits(
    workspaceId: string,
    objective: string,
    limit: number,
    accept: (store: GraphStore, id: number) => boolean,
    signal?: AbortSignal,
  ): Promise<{ hits: ObjectiveHit[]; dense: boolean }>
}
