import { GraphCatalog } from '@service/core'
import { CypherEngine } from '@service/core/cypher'
import { CONFORMANCE_BUDGETS } from '../test-harness.js'
import { renderValue } from './actual.js'
import { parseCell } from './expected.js'
import type { ManualExample, ManualPage } from './extract.js'
import { TEMPORAL_TEXT, temporal } from './form.js'

export type ExampleStatus = 'passed' | 'refused' | 'wrong' | 'unreadable' | 'excluded' | 'erratum'

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
  [/^appendix\/tutorials\//, 'tutorials over the Movies dataset, which their pages do not create'],
]
const EXCLUDED_QUERIES: [RegExp, string][] = [
  [/\bdbms\./i, 'dbms.* administration procedure'],
  [/\bgenai\./i, 'GenAI plugin'],
  [/\bLOAD\s+CSV\b/i, 'reads files from a server'],
  [/\b(SHOW|TERMINATE)\s+TRANSACTIONS?\b/i, "the server's running transactions"],
  [/\borg\.neo4j\.function\.example\./i, 'user-defined functions of a Java plugin'],
  [/\bgraph\.names\(|\bdb\.nameFromElementId\(/i, 'composite databases'],
  [
    /^\s*USE\s|\bCREATE\s+(OR\s+REPLACE\s+)?DATABASE\b|\bSHOW\s+(DATABASES?|SERVERS|USERS|ROLES|PRIVILEGES|SETTINGS)\b/im,
    'other databases or server administration',
  ],
  [
    /^\s*SHOW\s+(ALL\s+|BUILT\s+IN\s+|USER\s+DEFINED\s+)?(FUNCTIONS|PROCEDURES)\b/i,
    "Neo4j's own catalogue of functions and procedures",
  ],
]

/**
 * Examples whose documented table contradicts its own query (a column named otherwise than the query names
 * it, a title the page's setup spells differently): reported as errata, not counted. Keyed by page and a
 * piece of the query, so they survive edits of the surrounding text.
 */
const ERRATA: [string, string, string][] = [
  ['queries/basic.adoc', 'm.title AS movies', "the table's column is 'movie'"],
  [
    'queries/basic.adoc',
    '-[r]->(m:Movie)\nRETURN type(r) AS type, m.title AS movie',
    "the setup spells 'Joe Versus the Volcano'",
  ],
  [
    'functions/scalar.adoc',
    'RETURN a.likedColors, last(a.likedColors)',
    "the table's columns say liked_colors",
  ],
  ['functions/string.adoc', "RETURN btrim('   hello    ')", "the table's column drops the trailing spaces"],
  ['patterns/reference.adoc', 'RETURN a = d, b = c, size(s)', "the table's column is 'size()'"],
  ['subqueries/collect.adoc', '} AS names', "the table's column is 'name'"],
  [
    'clauses/limit.adoc',
    'WITH n ORDER BY n.name LIMIT 1\nSET n.locked = true',
    "the table shows age 60, set by an earlier query on a node named 'A' that the page's graph lacks",
  ],
  [
    'clauses/remove.adoc',
    'FOREACH (i IN propertyKeys | REMOVE n[i])',
    "the table shows Andy's age, which the page's first example removed",
  ],
  [
    'clauses/merge.adoc',
    "MERGE (charlie {name: 'Charlie Sheen', age: 10})",
    'the table shows a Person label the MERGE pattern does not give',
  ],
  [
    'clauses/merge.adoc',
    '->(chauffeur:Chauffeur {name: person.chauffeurName})',
    'the table shows Person where the MERGE pattern creates Chauffeur nodes',
  ],
  [
    'functions/scalar.adoc',
    'coalesce(nullIf(a.eyes, "Brown"), "Hazel")',
    "the table capitalises Eskil's eyes, which the setup spells 'blue'",
  ],
  [
    'clauses/union.adoc',
    'RETURN name, count(*) AS count\nORDER BY count',
    'the table lists count 2 before the 1s',
  ],
]
/** Results that depend on the clock, randomness or Neo4j's internal ids: only columns and row count compare. */
const UNREPEATABLE =
  /\b(?:date|datetime|localdatetime|localtime|time)\.(?:realtime|statement|transaction)\(|\b(?:date|datetime|localdatetime|localtime|time)(?:\.(?:realtime|statement|transaction))?\(\s*(?:\)|\{\s*timezone)|\b(?:timestamp|rand|randomUUID)\(\s*\)|\belementId\(|\bid\(/i

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

/**
 * Runs a page's examples in page order on one graph, as the manual's own tests do: its setup blocks run
 * before the examples that follow them, and what an example writes is seen by the next ones.
 */
async function runPage(page: ManualPage): Promise<ExampleResult[]> {
  const engine = new CypherEngine(new GraphCatalog(), { budgets: CONFORMANCE_BUDGETS })
  let setupDone = 0
  let setupError: string | undefined
  const results: ExampleResult[] = []
  for (const example of page.examples) {
    for (; setupDone < example.setupBefore; setupDone++) {
      const statement = page.setup[setupDone]
      if (statement === undefined || exclusion(page.path, statement.query) !== undefined) continue
      const outcome = await engine.execute({ query: statement.query, mode: 'auto' })
      const error = outcome.result.validation_errors[0]
      if (outcome.result.status !== 'Success' && statement.required)
        setupError = `setup: ${error?.code}: ${error?.message}`
    }
    let outcome: Pick<ExampleResult, 'status' | 'reason'>
    try {
      outcome =
        setupError === undefined
          ? await runExample(engine, page.path, example)
          : { status: 'refused', reason: setupError }
    } catch (error) {
      outcome = {
        status: 'wrong',
        reason: `crash: ${error instanceof Error ? error.message : String(error)}`,
      }
    }
    results.push({
      page: page.path,
      section: sectionOf(page.path),
      line: example.line,
      query: example.query,
      ...outcome,
    })
  }
  return results
}

async function runExample(
  engine: CypherEngine,
  page: string,
  example: ManualExample,
): Promise<Pick<ExampleResult, 'status' | 'reason'>> {
  const excluded = exclusion(page, example.query)
  if (excluded !== undefined) return { status: 'excluded', reason: excluded }
  const erratum = ERRATA.find(([p, piece]) => p === page && example.query.includes(piece))
  if (erratum !== undefined) return { status: 'erratum', reason: erratum[2] }
  let expected: string[][]
  try {
    expected = example.rows.map((row) => row.map((cell) => parseCell(cell)))
  } catch (error) {
    // Not compared, but run all the same: what it writes is what the page's next examples read.
    await engine.execute({ query: example.query, mode: 'auto', params: example.params })
    return { status: 'unreadable', reason: String(error) }
  }
  const outcome = await engine.execute({ query: example.query, mode: 'auto', params: example.params })
  if (outcome.result.status !== 'Success') {
    const error = outcome.result.validation_errors[0]
    return { status: 'refused', reason: `${error?.code}: ${error?.message}` }
  }
  const columns = outcome.raw?.columns ?? outcome.result.data?.columns ?? []
  const keep = example.columns.filter((c) => !example.excludeColumns.includes(c))
  const got = columns.filter((c) => !example.excludeColumns.includes(c))
  if (keep.length !== got.length || keep.some((c, i) => c !== got[i]))
    return {
      status: 'wrong',
      reason: `columns: expected ${JSON.stringify(keep)}, got ${JSON.stringify(got)}`,
    }
  const rows = outcome.raw?.rows ?? []
  if (UNREPEATABLE.test(example.query)) return { status: 'passed' }
  if (example.shapeOnly) {
    if (rows.length === expected.length) return { status: 'passed' }
    return { status: 'wrong', reason: `expected ${expected.length} rows, got ${rows.length}` }
  }
  const at = keep.map((c) => example.columns.indexOf(c))
  const graph = outcome.raw?.graph
  const unorderedLists = listsUnordered(example.query)
  const e = expected.map((row) => at.map((i) => relax(row[i] as string, unorderedLists)).join(' | '))
  // The manual prints some nodes as their property map: such a column compares properties only.
  const asMaps = at.map((i) => expected.some((row) => row[i]?.startsWith('{')))
  const a = rows.map((row) =>
    at
      .map((i, k) => {
        const j = columns.indexOf(example.columns[i] as string)
        const text = graph === undefined ? '?' : renderValue(row[j] ?? null, graph)
        return relax(asMaps[k] === true ? nodeAsMap(text) : text, unorderedLists)
      })
      .join(' | '),
  )
  const same = (x: string[], y: string[]): boolean =>
    x.length === y.length && x.every((row, i) => row === y[i])
  const [es, as] = [e.slice().sort(), a.slice().sort()]
  const keys = orderKeys(example.query, keep)
  // Ordered: the same rows, and the same sequence of ORDER BY keys (rows tied on the keys may come either way).
  const key = (rows: string[]) => rows.map((row) => keys.map((k) => row.split(' | ')[k]).join(' | '))
  if (same(es, as) && (keys.length === 0 || same(key(e), key(a)))) return { status: 'passed' }
  return {
    status: 'wrong',
    reason: `rows differ:\n    expected ${JSON.stringify(es)}\n    actual   ${JSON.stringify(as)}`,
  }
}

/**
 * Lists whose order Neo4j leaves to its storage (collect, keys, labels, pattern comprehensions): compared as
 * multisets when the query does not order.
 */
const UNORDERED_LISTS = /\b(?:collect|keys|labels)\s*[({]|\[\s*(?:\w+\s*=\s*)?\(/i

/**
 * Whether the lists a query builds have an order Neo4j leaves open: it collects, and no ORDER BY comes before
 * the first collecting construct (an ORDER BY after it sorts rows, not the lists' items).
 */
function listsUnordered(query: string): boolean {
  const at = query.search(UNORDERED_LISTS)
  return at >= 0 && !/ORDER\s+BY/i.test(query.slice(0, at))
}

/** The items of every list in a canonical text, sorted (lists nested in maps and lists too). */
export function sortLists(text: string): string {
  let at = 0
  const value = (): string => {
    let out = ''
    while (at < text.length) {
      const c = text[at] as string
      if (c === '"') {
        const end = stringEnd(text, at)
        out += text.slice(at, end)
        at = end
      } else if (c === '[') {
        at++
        const items: string[] = []
        let item = value()
        while (text[at] === ',') {
          items.push(item)
          at++
          item = value()
        }
        if (item !== '' || items.length > 0) items.push(item)
        at++ // ']'
        out += `[${items.sort().join(',')}]`
      } else if (c === '(' || c === '{') {
        const close = c === '(' ? ')' : '}'
        at++
        let inner = c
        for (;;) {
          inner += value()
          if (at >= text.length || text[at] === close) break
          inner += text[at] // a separator inside the brackets
          at++
        }
        at++
        out += `${inner}${close}`
      } else if (c === ',' || c === ']' || c === ')' || c === '}') return out
      else {
        out += c
        at++
      }
    }
    return out
  }
  return value()
}

function stringEnd(text: string, start: number): number {
  let i = start + 1
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
  return i + 1
}

/**
 * The manual prints temporal values and their toString() alike, bare or quoted (quoted inside lists): on both
 * sides a temporal-looking string, whole or nested, counts as the temporal value.
 */
function relax(cell: string, unorderedLists: boolean): string {
  const text = cell.replace(/"((?:[^"\\]|\\.)*)"/g, (whole, inner: string) =>
    TEMPORAL_TEXT.test(inner) ? temporal(inner) : whole,
  )
  return unorderedLists ? sortLists(text) : text
}

/** `(:Label{k:v})` to `{k:v}`. */
function nodeAsMap(text: string): string {
  const m = /^\((?::[^{():]+)*(\{.*\})?\)$/.exec(text)
  return m === null ? text : (m[1] ?? '{}')
}

/**
 * The compared columns the final ORDER BY sorts on (by alias or expression text); empty when the query does
 * not order, or all columns when a sort key is no column (then rows must come exactly in the table's order).
 */
function orderKeys(query: string, columns: string[]): number[] {
  const upper = query.toUpperCase()
  const at = upper.lastIndexOf('ORDER BY')
  if (at < 0 || at < upper.lastIndexOf('RETURN')) return []
  const items = query
    .slice(at + 'ORDER BY'.length)
    .split(/\b(?:SKIP|LIMIT|OFFSET)\b/i)[0]
    ?.split(',')
    .map((item) =>
      item
        .trim()
        .replace(/\s+(ASC|ASCENDING|DESC|DESCENDING)$/i, '')
        .trim(),
    )
  const keys = (items ?? []).map((item) => columns.indexOf(item))
  return keys.some((k) => k < 0) ? columns.map((_, i) => i) : keys
}

export async function runPages(pages: ManualPage[]): Promise<ExampleResult[]> {
  const results: ExampleResult[] = []
  for (const page of pages) results.push(...(await runPage(page)))
  return results
}
