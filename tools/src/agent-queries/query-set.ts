import type { BundleFacts } from './bundle-facts.js'

/** Who writes a query like this one: the agent-query set mixes the styles of the tools that reach the engine. */
export type QueryStyle = 'text2cypher' | 'browser-guide' | 'langchain' | 'mcp-neo4j' | 'graphrag'

export type Rows = unknown[][]

export interface AgentQuery {
  id: string
  style: QueryStyle
  /** The Cypher feature the query leans on, for the per-feature report. */
  feature: string
  query: string
  params?: Record<string, unknown>
  /** Rows compared in order (the query orders them); otherwise as a multiset. */
  ordered?: boolean
  /** Lists inside values compared as sets (collect() and label order are unspecified). */
  sortLists?: boolean
  /** The column names are part of the answer (Neo4j's derivation of unaliased names). */
  columns?: string[]
  /** The expected rows, from the bundles alone. */
  expect?: (facts: BundleFacts) => Rows
  /** For answers whose exact shape is the tool's, not ours (schema procedures): a failure message or null. */
  check?: (rows: Rows, columns: string[], facts: BundleFacts) => string | null
}

/** A fifth of the set is kept aside: never tuned on, scored once at the end (`--aside`). */
export const isKeptAside = (index: number): boolean => index % 5 === 4
