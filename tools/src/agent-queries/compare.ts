import type { AgentQuery, Rows } from './query-set.js'

/** A value in a canonical form: numbers at 12 significant digits, maps by key, lists sorted when asked. */
function canonical(value: unknown, sortLists: boolean): unknown {
  if (typeof value === 'number' || typeof value === 'bigint') return Number(Number(value).toPrecision(12))
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v, sortLists))
    return sortLists ? items.map((v) => JSON.stringify(v)).sort() : items
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k], sortLists)]),
    )
  }
  return value
}

const rowKeys = (rows: Rows, sortLists: boolean): string[] =>
  rows.map((row) => JSON.stringify(canonical(row, sortLists)))

/** null when the rows answer the query, else what differs. */
export function compareRows(query: AgentQuery, actual: Rows, expected: Rows): string | null {
  const sortLists = query.sortLists === true
  const a = rowKeys(actual, sortLists)
  const e = rowKeys(expected, sortLists)
  if (!query.ordered) {
    a.sort()
    e.sort()
  }
  if (a.length !== e.length) return `expected ${e.length} rows, got ${a.length}: ${a.slice(0, 3).join(' ')}`
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== e[i]) return `row ${i}: expected ${e[i]}, got ${a[i]}`
  }
  return null
}
