/** The canonical workspace's full-text search, as the parity report reads it on each side. */
import { isEngineError } from '../errors.js'
import type { SeedSearch } from '../seed/search.js'
import { REF_WORKSPACE_ID } from './records.js'
import type { RefSearchPort } from './rollback-wiring.js'

/** Hits compared per query: the first page an operator would read. */
const TOP_K = 50

export function refSearch(seed: SeedSearch): RefSearchPort {
  return {
    async fullText(objective) {
      try {
        const result = await seed.search({
          objective,
          workspace_id: REF_WORKSPACE_ID,
          mode: 'full_text',
          top_k: TOP_K,
        })
        return result.candidates.map((c) => ({ node_id: c.node_id, score: c.score }))
      } catch (error) {
        // No seed (422) is a result too: nothing matches, on this side.
        if (isEngineError(error) && error.category === 'unprocessable') return []
        throw error
      }
    },
    async fullTextDocuments() {
      await seed.warm()
      return seed.stats(REF_WORKSPACE_ID).documents
    },
  }
}
