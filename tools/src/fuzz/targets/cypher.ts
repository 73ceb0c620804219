import { type Engine, openEngine } from '@service/core'
import * as fc from 'fast-check'
import { ownCypherSeeds, tckQueries } from '../corpus.js'
import { CYPHER_MODES, cypherParams, cypherQuery, templatedQuery } from '../generators/cypher-grammar.js'
import { mutatedQuery } from '../generators/token-mutation.js'
import { cypherResultIsClean, engineFailureOnly, graphDigest } from '../invariants.js'
import { type FuzzTarget, invariant } from '../target.js'

/** Small budgets so that runaway queries meet a budget quickly; the invariants say the budgets hold. */
export const FUZZ_BUDGETS = {
  maxLoadedRecords: 2_000,
  maxReturnedRecords: 100,
  maxMutations: 100,
  maxListSize: 1_000,
  maxPayloadBytes: 64 * 1024,
  maxVariableLengthHops: 4,
  maxExpressionDepth: 64,
  maxWarmAdjacencyEntries: 2_000,
  maxHotNodes: 200,
  maxHotRelationships: 200,
}
/** A query running past this is stopped by the clock (REQUEST_TIMEOUT, an EngineError). */
const DEADLINE_MS = 2_000

const SEED_GRAPH = `
CREATE (a0:A {name: 'a0', n: 1, xs: [1, 2, 3], f: 1.5}), (a1:A:B {name: 'a1', n: 9223372036854775807}),
       (b0:B {name: 'b0', xs: ['x', 'y']}), (c0:C {name: '', f: -0.0}), (e:C)
CREATE (a0)-[:R {w: 1}]->(a1), (a1)-[:R]->(b0), (b0)-[:S {w: 'x'}]->(a0), (a0)-[:T]->(a0), (c0)-[:R]->(e)`

export interface CypherCase {
  query: string
  params: Record<string, unknown>
  mode: (typeof CYPHER_MODES)[number]
}

async function fuzzEngine(): Promise<Engine> {
  const engine = await openEngine({ storage: { mode: 'ephemeral' }, cypherBudgets: FUZZ_BUDGETS })
  const seeded = await engine.write(SEED_GRAPH)
  if (seeded.status !== 'Success') throw new Error(`seed graph failed: ${JSON.stringify(seeded)}`)
  return engine
}

/**
 * Parse → analyse → plan → execute on a fresh small graph. Invariants: only EngineErrors escape; no
 * result wraps a JavaScript error; a failed query, a read and a validation change nothing; the
 * returned-rows and mutation budgets hold.
 */
export async function checkCypherCase({ query, params, mode }: CypherCase): Promise<void> {
  const engine = await fuzzEngine()
  try {
    const before = await graphDigest(engine)
    const result = await engineFailureOnly(() =>
      engine.cypher({ query, params, mode, deadline: Date.now() + DEADLINE_MS }),
    )
    const after = await graphDigest(engine)
    if (result === undefined) {
      invariant(after === before, 'a query that threw changed the graph')
      return
    }
    cypherResultIsClean(result)
    const wrote = result.status === 'Success' && (mode === 'write' || mode === 'auto')
    if (!wrote) invariant(after === before, `a ${mode} query with status ${result.status} changed the graph`)
    if (result.status === 'Success' && mode !== 'validate') {
      invariant(result.data !== null, 'a successful query has no data')
      invariant(result.data.rows.length <= FUZZ_BUDGETS.maxReturnedRecords, 'returned-rows budget broken')
      for (const row of result.data.rows) invariant(row.length === result.data.columns.length, 'ragged row')
      const { created_nodes, deleted_nodes, created_relationships, deleted_relationships } =
        result.mutation_summary
      const records = created_nodes + deleted_nodes + created_relationships + deleted_relationships
      invariant(records <= FUZZ_BUDGETS.maxMutations, `mutation budget broken: ${records}`)
    }
    if (mode === 'validate') invariant(result.data === null, 'validate mode returned data')
  } finally {
    await engine.close()
  }
}

const cases = (query: fc.Arbitrary<string>): fc.Arbitrary<CypherCase> =>
  fc.record({ query, params: cypherParams, mode: fc.constantFrom(...CYPHER_MODES) })

export const cypherGrammarTarget: FuzzTarget<CypherCase> = {
  name: 'cypher-grammar',
  description:
    'random Cypher syntax trees printed to text (free-form and in well-formed query shapes), with arbitrary parameters, in read/write/auto/validate modes on a small graph',
  async prepare() {
    return {
      arbitrary: cases(fc.oneof(cypherQuery, templatedQuery)),
      check: checkCypherCase,
      corpus: 'generated from the grammar',
    }
  },
}

export const cypherMutationTarget: FuzzTarget<CypherCase> = {
  name: 'cypher-mutation',
  description: 'token-level mutations and splices of the TCK queries and the repository corpus, all modes',
  async prepare() {
    const own = ownCypherSeeds()
    const tck = tckQueries()
    return {
      arbitrary: cases(mutatedQuery([...own, ...tck])),
      check: checkCypherCase,
      corpus: `${own.length} repository queries + ${tck.length} TCK queries${tck.length === 0 ? ' (no TCK under SHARED_DIR)' : ''}`,
    }
  },
}
