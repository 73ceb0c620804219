import type { GraphReader, PropertyValue } from '../graph/types.js'
import { type RecordKeys, relValue, timeOf } from './recall.js'

/**
 * Recall filters: what a caller narrows a recall to, applied alike to seeds (explicit and objective) and to the
 * walk, so a filtered-out memory neither answers nor carries activation to its neighbours.
 *
 * - `kinds`: the memory's kind is one of these. `tags_any` / `tags_all`: at least one / every tag is present.
 * - `min_confidence`: memories and relationships with a confidence below it are left out; an absent confidence
 *   is unknown, not low, and passes.
 * - `relationship_kinds`: only relationships of these kinds are walked (and only their facts are text evidence).
 * - `valid_at`: only memories and relationships whose validity interval holds that instant; the interval
 *   includes `valid_from` and excludes `valid_until`, and an open end is unbounded.
 * - `as_of`: the workspace as recorded at that instant; not a predicate here but the graph recall reads
 *   (recall-query.ts), with "now" at that instant for expiry and validity.
 */
export interface RecallFilters {
  kinds: string[] | null
  tags_any: string[] | null
  tags_all: string[] | null
  min_confidence: number | null
  relationship_kinds: string[] | null
  valid_at: string | null
  /** Handled by recall-query.ts: the graph is read as recorded at this instant (history/as-recorded-reader.ts). */
  as_of: string | null
}

export const NO_FILTERS: RecallFilters = {
  kinds: null,
  tags_any: null,
  tags_all: null,
  min_confidence: null,
  relationship_kinds: null,
  valid_at: null,
  as_of: null,
}

/** The filters a caller set, in a canonical form (sorted, without repeats), for usage, trace and the page token. */
export function appliedFilters(filters: RecallFilters): Partial<RecallFilters> {
  const out: Partial<RecallFilters> = {}
  for (const [key, value] of Object.entries(filters) as [keyof RecallFilters, unknown][]) {
    if (value === null) continue
    ;(out as Record<string, unknown>)[key] = Array.isArray(value) ? [...new Set(value)].sort() : value
  }
  return out
}

export interface CompiledFilters {
  /** False when no filter is set: the checks are skipped entirely. */
  readonly active: boolean
  memory(reader: GraphReader, id: number): boolean
  relationship(reader: GraphReader, rel: number): boolean
}

/** True when the validity interval [valid_from, valid_until) holds `at`. */
function validAt(from: PropertyValue | undefined, until: PropertyValue | undefined, at: number): boolean {
  const start = timeOf(from)
  if (start !== null && start > at) return false
  const end = timeOf(until)
  return end === null || end > at
}

function confident(value: PropertyValue | undefined, min: number | null): boolean {
  return min === null || typeof value !== 'number' || value >= min
}

export function compileFilters(filters: RecallFilters, keys: RecordKeys): CompiledFilters {
  const kinds = filters.kinds === null ? null : new Set(filters.kinds)
  const any = filters.tags_any
  const all = filters.tags_all
  const relKinds = filters.relationship_kinds === null ? null : new Set(filters.relationship_kinds)
  const at = filters.valid_at === null ? null : Date.parse(filters.valid_at)
  const min = filters.min_confidence
  const memoryActive = kinds !== null || any !== null || all !== null || min !== null || at !== null
  const relActive = relKinds !== null || min !== null || at !== null
  return {
    active: memoryActive || relActive,
    memory(reader, id) {
      if (!memoryActive) return true
      const props = reader.node(id)?.props
      if (props === undefined) return false
      const get = (key: number) => (key < 0 ? undefined : props.get(key))
      if (kinds !== null) {
        const kind = get(keys.kind)
        if (typeof kind !== 'string' || !kinds.has(kind)) return false
      }
      if (any !== null || all !== null) {
        const value = get(keys.tags)
        const tags = Array.isArray(value) ? value : []
        if (any !== null && !any.some((t) => tags.includes(t))) return false
        if (all !== null && !all.every((t) => tags.includes(t))) return false
      }
      if (!confident(get(keys.confidence), min)) return false
      return at === null || validAt(get(keys.valid_from), get(keys.valid_until), at)
    },
    relationship(reader, rel) {
      if (!relActive) return true
      if (relKinds !== null) {
        const kind = relValue(reader, rel, keys.kind)
        if (typeof kind !== 'string' || !relKinds.has(kind)) return false
      }
      if (!confident(relValue(reader, rel, keys.confidence), min)) return false
      return (
        at === null ||
        validAt(relValue(reader, rel, keys.valid_from), relValue(reader, rel, keys.valid_until), at)
      )
    },
  }
}
