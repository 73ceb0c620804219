import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { listFiles } from '../test-harness.js'

/**
 * Extraction of the Cypher manual's examples from its AsciiDoc pages (neo4j/docs-cypher), at run time: the
 * manual's text never enters the repository. A page's `role=test-setup` blocks build its graph; every Cypher
 * source block followed by a `role="queryresult"` table is an example with its documented result.
 */
export interface ManualExample {
  /** Line of the query block in its page (1-based). */
  line: number
  query: string
  params: Record<string, unknown>
  columns: string[]
  /** Cells as written in the table, one array per row. */
  rows: string[][]
  /** The block asks for the result not to be compared (`role=test-result-skip`): only columns and row count. */
  shapeOnly: boolean
  /** Columns the manual's own tests leave out (`test-exclude-cols=…`). */
  excludeColumns: string[]
  /** How many of the page's setup statements come before this example (they run first, in page order). */
  setupBefore: number
}

export interface ManualPage {
  /** Path relative to the pages root, e.g. `clauses/match.adoc`. */
  path: string
  /**
   * Statements that build the page's graph, in page order: the `role=test-setup` blocks (required), and the
   * Cypher blocks without a result table, which the manual's own tests run too (their errors are ignored).
   */
  setup: { query: string; required: boolean }[]
  examples: ManualExample[]
}

interface SourceBlock {
  line: number
  attrs: string
  title: string | undefined
  text: string
}

const SOURCE = /^\[source(?:,\s*([^\],\s]+))?([^\]]*)\]\s*$/
/** Blocks the manual's tests do not run. */
const SKIPPED = /role="?test-skip/
/**
 * Blocks the manual's tests run expecting an error: never compared, but run in page order like setup, since
 * what they wrote before failing (a committed inner transaction) is what the next examples read.
 */
const FAILING = /role="?test-fail/
const RESULT = /^\[role="?queryresult"?[^\]]*\]\s*$/

/** Every `.adoc` file under root, sorted. */
export function listPages(root: string): string[] {
  return listFiles(root, '.adoc')
}

export function readPage(root: string, file: string): ManualPage {
  return extractPage(relative(root, file).split('\\').join('/'), readFileSync(file, 'utf8'))
}

export function extractPage(path: string, text: string): ManualPage {
  const lines = text.split(/\r?\n/)
  const page: ManualPage = { path, setup: [], examples: [] }
  let query: SourceBlock | undefined
  let params: Record<string, unknown> = {}
  let title: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    if (/^\.[A-Za-z]/.test(line)) {
      title = line.slice(1).trim()
      continue
    }
    const source = SOURCE.exec(line)
    if (source && lines[i + 1]?.startsWith('----')) {
      const end = lines.findIndex((l, j) => j > i + 1 && l.startsWith('----'))
      if (end < 0) break
      const block: SourceBlock = {
        line: i + 1,
        attrs: `${source[1] ?? ''}${source[2] ?? ''}`,
        title,
        text: lines.slice(i + 2, end).join('\n'),
      }
      i = end
      title = undefined
      const lang = source[1] ?? ''
      if (lang === 'cypher' && /role="?test-setup/.test(block.attrs))
        page.setup.push(...statements(block.text).map((q) => ({ query: q, required: true })))
      else if (lang === 'cypher') {
        if (query !== undefined && !SKIPPED.test(query.attrs))
          page.setup.push(...statements(query.text).map((q) => ({ query: q, required: false })))
        query = block
      } else if (lang === 'parameters' || (block.title === 'Parameters' && /json|javascript/.test(lang)))
        params = parseParams(block.text)
      continue
    }
    if (RESULT.test(line) && lines[i + 1]?.startsWith('|===')) {
      const end = lines.findIndex((l, j) => j > i + 1 && l.startsWith('|==='))
      if (end < 0) break
      const table = parseTable(
        lines.slice(i + 2, end),
        /header/.test(line) || !/options=/.test(line),
        columnCount(line),
      )
      i = end
      if (query !== undefined && !SKIPPED.test(query.attrs)) {
        if (table !== undefined && !FAILING.test(query.attrs))
          page.examples.push({
            line: query.line,
            query: query.text,
            params,
            columns: table.columns,
            rows: table.rows,
            shapeOnly: /role="?test-result-skip/.test(query.attrs),
            excludeColumns: /test-exclude-cols=([\w,]+)/.exec(query.attrs)?.[1]?.split(',') ?? [],
            setupBefore: page.setup.length,
          })
        // A failing query, or one whose table has no header (`(empty result)`): it still runs, and writes.
        else page.setup.push(...statements(query.text).map((q) => ({ query: q, required: false })))
      }
      query = undefined
      params = {}
    }
  }
  return page
}

/** A setup block's statements: they are separated by `;` at the end of a line. */
function statements(text: string): string[] {
  return text
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

function parseParams(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** A footer line ends the rows: `1+d|Rows: 3`, `|Rows: 3`, `2+|(empty result)`, `d|3 rows`. */
const FOOTER = /^(\d+\+)?[a-z]?\|\s*(Rows:|\d+ rows?\b|\(empty result\)|\(no changes)/i
/** A cell starts at a `|` at the start of a line or after a space, with an optional AsciiDoc cell spec. */
const CELL = /(?:^|(?<=\s))(?:\d+\*)?(?:\d+\+)?[adehlmsv]?\|/g

/** Splits a table body into cells; the header row is the first line holding cells. */
export function parseTable(
  body: string[],
  hasHeader: boolean,
  width?: number,
): { columns: string[]; rows: string[][] } | undefined {
  const kept: string[] = []
  for (const line of body) {
    if (FOOTER.test(line.trim())) break
    kept.push(line)
  }
  const headerAt = kept.findIndex((l) => l.trim().startsWith('|'))
  if (headerAt < 0 || !hasHeader) return undefined
  // The header row is the first line's cells, unless the `cols` attribute says it spans more lines.
  const all = cells(kept.slice(headerAt).join('\n'))
  const columns = all.slice(0, width ?? cells(kept[headerAt] as string).length)
  if (columns.length === 0) return undefined
  const rest = all.slice(columns.length)
  if (rest.length % columns.length !== 0) return undefined
  const rows: string[][] = []
  for (let i = 0; i < rest.length; i += columns.length) rows.push(rest.slice(i, i + columns.length))
  return { columns, rows }
}

/** The column count of `cols="3*<m"` or `cols="1,2,1"`; undefined when absent. */
function columnCount(attrs: string): number | undefined {
  const cols = /cols="([^"]*)"/.exec(attrs)?.[1]
  // A malformed attribute (`cols=""3*<m"`, an empty value) says nothing: the header line decides.
  if (cols === undefined || cols === '') return undefined
  const star = /^(\d+)\*/.exec(cols)
  return star ? Number(star[1]) : cols.split(',').length
}

/** Cell texts without AsciiDoc's `+…+` passthrough marks and hard line breaks. */
function cells(text: string): string[] {
  const starts: { at: number; end: number }[] = []
  for (const m of text.matchAll(CELL)) starts.push({ at: m.index, end: m.index + m[0].length })
  return starts.map((s, i) =>
    text
      .slice(s.end, starts[i + 1]?.at ?? text.length)
      .replace(/\s*\+\s*$/gm, ' ')
      .trim()
      .replace(/^\+(.*?)\+?$/s, '$1')
      .trim(),
  )
}
