import { GraphCatalog } from '@service/core'
import { CypherEngine, type Value } from '@service/core/cypher'
import { renderValue } from './actual.js'
import { parseCell } from './expected.js'
import type { ManualExample, ManualPage } from './extract.js'

export type ExampleStatus = 'passed' | 'refused' | 'wrong' | 'unreadable' | 'excluded'

export interface ExampleResult {
  page: string
  section: string
  line: number
  query: string
  status: ExampleStatus
  reason?: string
}

/**
 * Pages and queries that are not self-contained: they need a server's administration, other databases,
 * files, settings or plugins the engine does not have. Each is excluded with its reason (tools/README.md).
 */
const EXCLUDED_PAGES: [RegExp, string][] = [
  [/^administration\//, 'database administration (users, databases, servers)'],
  [/^genai-integrations/, 'GenAI plugin calling external model providers'],
  [/^planning-and-tuning\//, 'query plans and runtimes of Neo4j itself'],
  [/^query-caches\//, 'Neo4j server query caches'],
]
const EXCLUDED_QUERIES: [RegExp, string][] = [
  [/\bdbms\./i, 'dbms.* administration procedure'],
  [/\bgenai\./i, 'GenAI plugin'],
  [/\bLOAD\s+CSV\b/i, 'reads files from a server'],
  [/^\s*USE\s|\bCREATE\s+(OR\s+REPLACE\s+)?DATABASE\b|\bSHOW\s+(DATABASES?|SERVERS|USERS|ROLES|PRIVILEGES|SETTINGS)\b/im,
    'other databases or server administration'],
]
/** Results that depend on the clock, randomness or Neo4j's internal ids: only columns and row count compare. */
const UNREPEATABLE =
  /\b(?:date|datetime|localdatetime|localtime|time)(?:\.(?:realtime|statement|transaction))?\(\s*(?:\)|\{\s*timezone)|\b(?:timestamp|rand|randomUUID)\(\s*\)|\belementId\(|\bid\(/i

export function sectionOf(path: string): string {
  if (/spatial/.test(path)) return 'spatial'
  if (/temporal/.test(path)) return 'temporal'
  return path.includes('/') ? (path.split('/')[0] as string) : path.replace(/\.adoc$/, '')
}

function exclusion(page: string, query: string): string | undefined {
  for (const [pattern, reason] of EXCLUDED_PAGES) if (pattern.test(page)) return reason
  for (const [pattern, reason] of EXCLUDED_QUERIES) if (pattern.test(query)) return reason
  return undefined
}

/** The manual's examples test semantics, not the service's budgets. */
const BUDGETS = {
  maxQueryLength: 1_000_000,
  maxLoadedRecords: 10_000_000,
  maxReturnedRecords: 10_000_000,
  maxMutations: 10_000_000,
  maxListSize: 10_000_000,
  maxPayloadBytes: 1 << 30,
  maxVariableLengthHops: 100,
}

/** Runs one example on a fresh graph built by its page's setup. */
export async function runExample(
  page: ManualPage,
  example: ManualExample,
): Promise<Pick<ExampleResult, 'status' | 'reason'>> {
  const excluded = exclusion(page.path, example.query)
  if (excluded !== undefined) return { status: 'excluded', reason: excluded }
  let expected: string[]
  try {
    expected = example.rows.map((row) => row.map((cell) => parseCell(cell)).join(' | '))
  } catch (error) {
    return { status: 'unreadable', reason: String(error) }
  }
  const engine = new CypherEngine(new GraphCatalog(), { budgets: BUDGETS })
  for (const setup of page.setup) {
    const outcome = await engine.execute({ query: setup, mode: 'write' })
    if (outcome.result.status !== 'Success') {
      const error = outcome.result.validation_errors[0]
      return { status: 'refused', reason: `setup: ${error?.code}: ${error?.message}` }
    }
  }
  const outcome = await engine.execute({ query: example.query, mode: 'auto', params: example.params })
  if (outcome.result.status !== 'Success') {
    const error = outcome.result.validation_errors[0]
    return { status: 'refused', reason: `${error?.code}: ${error?.message}` }
  }
  const raw = outcome.raw ?? { columns: outcome.result.data?.columns ?? [], rows: [] as Value[][], graph: undefined }
  const wanted = example.columns.filter((c) => !example.excludeColumns.includes(c))
  const got = raw.columns.filter((c) => !example.excludeColumns.includes(c))
  if (wanted.length !== got.length || wanted.some((c, i) => c !== got[i]))
    return { status: 'wrong', reason: `columns: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(got)}` }
  if (example.shapeOnly || UNREPEATABLE.test(example.query)) {
    if (raw.rows.length === expected.length) return { status: 'passed' }
    return { status: 'wrong', reason: `expected ${expected.length} rows, got ${raw.rows.length}` }
  }
  const keep = example.columns.map((c, i) => (example.excludeColumns.includes(c) ? -1 : i)).filter((i) => i >= 0)
  const e = expected.map((row) => {
    const cells = row.split(' | ')
    return keep.map((i) => cells[i]).join(' | ')
  })
  const graph = raw.graph
  const a = raw.rows.map((row) =>
    keep
      .map((i) => raw.columns.indexOf(example.columns[i] as string))
      .map((j) => (graph === undefined ? '?' : renderValue(row[j] ?? null, graph)))
      .join(' | '),
  )
  const ordered = orders(example.query)
  const [es, as] = ordered ? [e, a] : [e.slice().sort(), a.slice().sort()]
  if (es.length === as.length && es.every((row, i) => row === as[i])) return { status: 'passed' }
  return { status: 'wrong', reason: `rows differ:\n    expected ${JSON.stringify(es)}\n    actual   ${JSON.stringify(as)}` }
}

/** Row order is documented only when the final RETURN orders. */
function orders(query: string): boolean {
  const upper = query.toUpperCase()
  const order = upper.lastIndexOf('ORDER BY')
  return order >= 0 && order > upper.lastIndexOf('RETURN')
}

export async function runPages(pages: ManualPage[]): Promise<ExampleResult[]> {
  const results: ExampleResult[] = []
  for (const page of pages) {
    for (const example of page.examples) {
      let outcome: Pick<ExampleResult, 'status' | 'reason'>
      try {
        outcome = await runExample(page, example)
      } catch (error) {
        outcome = { status: 'wrong', reason: `crash: ${error instanceof Error ? error.message : String(error)}` }
      }
      results.push({ page: page.path, section: sectionOf(page.path), line: example.line, query: example.query, ...outcome })
    }
  }
  return results
}
