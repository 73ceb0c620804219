// Filtering and paging of a collection's entries, as the TAXII 2.1 objects and manifest endpoints define them.
import { randomUUID } from 'node:crypto'
import { parseTimestamp } from './timestamps.mjs'

/** @typedef {import('./store.mjs').Entry} Entry */

export class QueryError extends Error {}

const MAX_TOKENS = 10_000

/**
 * `next` tokens are opaque ids of a stored result and offset. They stay valid after use, so a client retrying a
 * page after a lost response gets the same page; the oldest are dropped beyond MAX_TOKENS.
 * @type {Map<string, { entries: Entry[], offset: number }>}
 */
const tokens = new Map()

/**
 * @param {Entry[]} entries all stored versions in the collection
 * @param {URLSearchParams} params the request's query
 * @param {{ pageMax: number, objectId?: string }} options
 * @returns {{ page: Entry[], more: boolean, next: string | undefined }}
 */
export function queryEntries(entries, params, { pageMax, objectId }) {
  const limitText = params.get('limit')
  let limit = pageMax
  if (limitText !== null) {
    if (!/^\d+$/.test(limitText) || Number(limitText) < 1)
      throw new QueryError('limit must be a positive integer')
    limit = Math.min(Number(limitText), pageMax)
  }
  const nextToken = params.get('next')
  let selected
  let offset = 0
  if (nextToken !== null) {
    const saved = tokens.get(nextToken)
    if (saved === undefined) throw new QueryError('unknown or expired next token')
    selected = saved.entries
    offset = saved.offset
  } else {
    selected = select(entries, params, objectId)
  }
  const page = selected.slice(offset, offset + limit)
  const more = offset + page.length < selected.length
  let next
  if (more) {
    next = randomUUID()
    tokens.set(next, { entries: selected, offset: offset + page.length })
    if (tokens.size > MAX_TOKENS) tokens.delete(/** @type {string} */ (tokens.keys().next().value))
  }
  return { page, more, next }
}

/**
 * match[id], match[type], match[version] (last by default, first, all or a list), then added_after (strictly
 * after), ordered by date_added (ties keep storage order).
 * @param {Entry[]} entries
 * @param {URLSearchParams} params
 * @param {string | undefined} objectId
 * @returns {Entry[]}
 */
function select(entries, params, objectId) {
  const ids = list(params.get('match[id]'))
  const types = list(params.get('match[type]'))
  let found = entries.filter(
    (e) =>
      (objectId === undefined || e.id === objectId) &&
      (ids === undefined || ids.includes(e.id)) &&
      (types === undefined || types.includes(e.type)),
  )
  found = byVersion(found, list(params.get('match[version]')) ?? [objectId === undefined ? 'last' : 'all'])
  const afterText = params.get('added_after')
  if (afterText !== null) {
    const after = parseTimestamp(afterText)
    if (after === undefined) throw new QueryError('added_after must be an RFC 3339 timestamp ending in Z')
    found = found.filter((e) => e.dateAdded > after)
  }
  return found
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) =>
      a.entry.dateAdded < b.entry.dateAdded
        ? -1
        : a.entry.dateAdded > b.entry.dateAdded
          ? 1
          : a.index - b.index,
    )
    .map(({ entry }) => entry)
}

/**
 * @param {Entry[]} entries
 * @param {string[]} wanted
 */
function byVersion(entries, wanted) {
  if (wanted.includes('all')) return entries
  /** @type {Map<string, Entry[]>} */
  const versions = new Map()
  for (const e of entries) versions.set(e.id, [...(versions.get(e.id) ?? []), e])
  const keep = new Set()
  for (const group of versions.values()) {
    const sorted = [...group].sort((a, b) => Date.parse(a.version) - Date.parse(b.version))
    if (wanted.includes('first')) keep.add(sorted[0])
    if (wanted.includes('last')) keep.add(sorted.at(-1))
    for (const e of group) if (wanted.includes(e.version)) keep.add(e)
  }
  return entries.filter((e) => keep.has(e))
}

/** @param {string | null} value a comma-separated filter value */
function list(value) {
  return value === null ? undefined : value.split(',').map((s) => s.trim())
}
