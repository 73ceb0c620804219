/**
 * The TAXII 2.1 filtering and paging parameters (section 3.4 of the specification): `added_after`,
 * `limit`, `next`, and `match[id|type|version|spec_version]` (comma lists), checked into a query.
 */
import { EngineError } from '../errors.js'
import { parseMicros, timestampKey } from '../stix/timestamps.js'

export interface PageLimits {
  /** Page size when the request gives no `limit`. */
  defaultSize: number
  /** Largest page served; a larger `limit` is lowered to it (the specification lets the server do so). */
  maxSize: number
}

export interface ObjectQuery {
  /** Only versions added strictly after this many microseconds since the epoch (`added_after`, `next`). */
  after: number
  limit: number
  ids: ReadonlySet<string> | null
  types: ReadonlySet<string> | null
  /** `first`, `last`, `all`, and version timestamps (as sortable keys). */
  versions: { first: boolean; last: boolean; all: boolean; exact: ReadonlySet<string> }
  specVersions: ReadonlySet<string> | null
}

/** The raw query string values, as Fastify hands them over (a repeated parameter arrives as an array). */
export type RawQuery = Record<string, string | string[] | undefined>

const bad = (message: string) => new EngineError('TAXII_INVALID_FILTER', message)

function single(query: RawQuery, name: string): string | undefined {
  const value = query[name]
  if (Array.isArray(value)) throw bad(`${name} is given more than once`)
  return value
}

function list(query: RawQuery, name: string): string[] | null {
  const value = single(query, name)
  if (value === undefined) return null
  const items = value.split(',').map((s) => s.trim())
  if (items.some((s) => s === '')) throw bad(`${name} has an empty item`)
  return items
}

/** `next` is the date added of the last version served, base 36: opaque to the client, exact for us. */
export const nextToken = (added: number): string => added.toString(36)

function parseNext(text: string): number {
  if (!/^[0-9a-z]{1,12}$/.test(text)) throw bad('next is not a token this server gave')
  const value = Number.parseInt(text, 36)
  if (!Number.isSafeInteger(value)) throw bad('next is not a token this server gave')
  return value
}

const KNOWN = new Set([
  'added_after',
  'limit',
  'next',
  'match[id]',
  'match[type]',
  'match[version]',
  'match[spec_version]',
])

/**
 * Checks the parameters an endpoint accepts (`allowed`); an unknown `match[...]` or a malformed value is
 * a 400, other unknown parameters are ignored as HTTP allows.
 */
export function parseObjectQuery(
  query: RawQuery,
  limits: PageLimits,
  allowed: ReadonlySet<string> = KNOWN,
): ObjectQuery {
  for (const name of Object.keys(query)) {
    if ((name.startsWith('match[') || KNOWN.has(name)) && !allowed.has(name))
      throw bad(`${name} is not a filter of this endpoint`)
  }
  let after = -1
  const addedAfter = single(query, 'added_after')
  if (addedAfter !== undefined) {
    const micros = parseMicros(addedAfter)
    if (micros === undefined) throw bad('added_after must be a timestamp such as 2024-01-01T00:00:00.000Z')
    after = micros
  }
  const next = single(query, 'next')
  if (next !== undefined) after = Math.max(after, parseNext(next))
  let limit = limits.defaultSize
  const limitText = single(query, 'limit')
  if (limitText !== undefined) {
    if (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1) throw bad('limit must be a positive integer')
    limit = Math.min(Number(limitText), limits.maxSize)
  }
  const versions = { first: false, last: false, all: false, exact: new Set<string>() }
  for (const v of list(query, 'match[version]') ?? ['last']) {
    if (v === 'first' || v === 'last' || v === 'all') versions[v] = true
    else {
      const key = timestampKey(v)
      if (key === undefined) throw bad(`match[version] '${v}' is not first, last, all or a timestamp`)
      versions.exact.add(key)
    }
  }
  const set = (name: string) => {
    const items = list(query, name)
    return items === null ? null : new Set(items)
  }
  return {
    after,
    limit,
    ids: set('match[id]'),
    types: set('match[type]'),
    versions,
    specVersions: set('match[spec_version]'),
  }
}

/** Filters of each endpoint (TAXII 2.1 sections 5.3 to 5.8). */
export const FILTERS = {
  objects: KNOWN,
  object: new Set(['added_after', 'limit', 'next', 'match[version]', 'match[spec_version]']),
  versions: new Set(['added_after', 'limit', 'next', 'match[spec_version]']),
  manifest: KNOWN,
} as const
