import { openEngine } from '@service/core'
import { importStix } from '@service/core/stix'
import { BundleFacts } from './bundle-facts.js'
import { compareRows } from './compare.js'
import { FUNCTION_QUERIES } from './queries-functions.js'
import { GRAPH_QUERIES } from './queries-graph.js'
import { SCHEMA_QUERIES } from './queries-schema.js'
import { type AgentQuery, isKeptAside } from './query-set.js'

/** The whole set, in a fixed order: the index decides which fifth is kept aside. */
export const AGENT_QUERIES: AgentQuery[] = [...SCHEMA_QUERIES, ...GRAPH_QUERIES, ...FUNCTION_QUERIES]

export type Verdict = 'passed' | 'refused' | 'wrong'

export interface QueryOutcome {
  query: AgentQuery
  aside: boolean
  verdict: Verdict
  detail: string
}

/**
 * Imports the ATT&CK bundles into an in-memory engine and runs each query as a forced read, the way the MCP
 * `cypher_read` tool and `POST /v1/cypher/read` run it. A query the engine refuses is `refused`; one that runs
 * but answers otherwise than the bundles say is `wrong`.
 */
export async function runAgentQueries(
  attackDir: string,
  part: 'tuning' | 'aside' | 'all',
): Promise<QueryOutcome[]> {
  const facts = new BundleFacts(attackDir)
  const engine = await openEngine({})
  try {
    for (const bundle of facts.bundles) await importStix(engine, { bundle })
    const outcomes: QueryOutcome[] = []
    for (const [index, query] of AGENT_QUERIES.entries()) {
      const aside = isKeptAside(index)
      if ((part === 'tuning' && aside) || (part === 'aside' && !aside)) continue
      outcomes.push({ query, aside, ...(await judge(engine, query, facts)) })
    }
    return outcomes
  } finally {
    await engine.close()
  }
}

async function judge(
  engine: Awaited<ReturnType<typeof openEngine>>,
  query: AgentQuery,
  facts: BundleFacts,
): Promise<{ verdict: Verdict; detail: string }> {
  const result = await engine.read(query.query, query.params ?? {})
  if (result.status !== 'Success' || result.data === null) {
    const error = result.validation_errors[0]
    return { verdict: 'refused', detail: `${error?.code}: ${error?.message}` }
  }
  const { columns, rows } = result.data
  if (query.columns && JSON.stringify(columns) !== JSON.stringify(query.columns)) {
    return {
      verdict: 'wrong',
      detail: `columns ${JSON.stringify(columns)}, expected ${JSON.stringify(query.columns)}`,
    }
  }
  const problem = query.check
    ? query.check(rows, columns, facts)
    : compareRows(query, rows, query.expect?.(facts) ?? [])
  return problem === null ? { verdict: 'passed', detail: '' } : { verdict: 'wrong', detail: problem }
}

export function summarize(outcomes: QueryOutcome[]): Record<Verdict, number> {
  const counts: Record<Verdict, number> = { passed: 0, refused: 0, wrong: 0 }
  for (const o of outcomes) counts[o.verdict]++
  return counts
}
