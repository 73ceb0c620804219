import { DateTimeValue } from '../cypher/temporal/values.js'
import type { GraphReader, PropertyValue } from '../graph/types.js'
import { MEMORY_LABEL, memoryRelationshipsOf, readMemory, readRelationship } from './layout.js'
import type { MemoryRecord, RecallLimits, RecallOutcome, RelationshipRecord } from './types.js'

export interface RecallItem {
  record: MemoryRecord
  selection_reasons: string[]
  score: number
  depth: number
  /** How the walk reached it: from a seed through these memories and relationships. */
  selection_path: { memory_ids: string[]; relationship_ids: string[] }
}

export interface WalkResult {
  items: RecallItem[]
  relationships: RelationshipRecord[]
  /** The JSON text of each item and relationship, made once for the payload budget (response-json.ts). */
  itemsJson: string[]
  relationshipsJson: string[]
  outcomes: RecallOutcome[]
  depth: number
  cost: number
  payload_bytes: number
  /** What ranked each item, in the order of `items` (absent for an item ranked without fusion). */
  signals: (RankSignals | undefined)[]
  /** Offset of the next page, or null when nothing more was found. */
  next_offset: number | null
}

export interface Reached {
  id: number
  depth: number
  score: number
  reasons: string[]
  parent: Reached | null
  via: number | null
  /** What ranked it (recall-fusion.ts), shown by `trace` of the recall. */
  signals?: RankSignals
}

/** The signals that ranked one item and what each contributed (recall-fusion.ts). */
export interface RankSignals {
  lexical: { value: number; contribution: number }
  graph: { value: number; contribution: number }
  relation: { value: number; contribution: number }
  seed: boolean
  /** OUT_OF_VALIDITY outside the validity interval (unless the objective asks about the past), else 1. */
  validity: number
  degree: { value: number; factor: number }
  confidence: { value: number | null; factor: number }
  /** OFF_ANSWER_KIND when the objective asks for another kind of memory, else 1. */
  answer_kind: number
  /** The place it kept at the top because the lexical scores are peaked, or null. */
  lexical_rank: number | null
}

/** Property keys recall reads on every record it passes, looked up once per recall (-1: no record has one). */
export interface RecordKeys {
  lifecycle: number
  expires_at: number
  valid_from: number
  valid_until: number
  kind: number
  confidence: number
  tags: number
  memory: number
}

export function recordKeys(reader: GraphReader): RecordKeys {
  const k = (name: string) => reader.names.lookup(name)
  return {
    lifecycle: k('lifecycle'),
    expires_at: k('expires_at'),
    valid_from: k('valid_from'),
    valid_until: k('valid_until'),
    kind: k('kind'),
    confidence: k('confidence'),
    tags: k('tags'),
    memory: k(MEMORY_LABEL),
  }
}

/** A time property as epoch ms (ISO text or a Cypher datetime), or null when absent or anything else. */
export function timeOf(v: PropertyValue | undefined): number | null {
  if (v instanceof DateTimeValue) return Number(v.epochNanoseconds / 1_000_000n)
  return typeof v === 'string' ? Date.parse(v) : null
}

/**
 * The recall visibility rule read straight from property values: the walk must not parse JSON per edge, and
 * it runs for every edge looked at, so it takes the values and builds no closure or map. Only `forget` (expiry,
 * tombstone, deletion) and consolidation's superseded originals leave recall: a record outside its validity
 * interval is a true fact about another time, returned and ranked by `validityOf` (DECISIONS: validity is not
 * forgetting).
 */
function visible(
  lifecycle: PropertyValue | undefined,
  expiresAt: PropertyValue | undefined,
  nowMs: number,
): boolean {
  if (lifecycle !== 'active') return false
  const expires = timeOf(expiresAt)
  return expires === null || expires > nowMs
}

/** Where a record stands against its validity interval now: inside it, past it (since when), or before it. */
export type Validity = { state: 'valid' } | { state: 'ended' | 'future'; at: string }

export function validityOf(
  validFrom: PropertyValue | undefined,
  validUntil: PropertyValue | undefined,
  nowMs: number,
): Validity {
  const until = timeOf(validUntil)
  if (until !== null && until <= nowMs) return { state: 'ended', at: validUntil as string }
  const from = timeOf(validFrom)
  if (from !== null && from > nowMs) return { state: 'future', at: validFrom as string }
  return { state: 'valid' }
}

/** One property of a relationship, without building its property map when the reader can (most can). */
export function relValue(reader: GraphReader, rel: number, key: number): PropertyValue | undefined {
  if (key < 0) return undefined
  return reader.relProperty ? reader.relProperty(rel, key) : reader.relProps(rel)?.get(key)
}

export function relationshipRecallable(reader: GraphReader, keys: RecordKeys, rel: number, nowMs: number) {
  return visible(relValue(reader, rel, keys.lifecycle), relValue(reader, rel, keys.expires_at), nowMs)
}

export function memoryRecallable(reader: GraphReader, keys: RecordKeys, id: number, nowMs: number): boolean {
  const node = reader.node(id)
  if (node === undefined || keys.memory < 0 || !node.labels.includes(keys.memory)) return false
  const props = node.props
  const value = (key: number) => (key < 0 ? undefined : props.get(key))
  return visible(value(keys.lifecycle), value(keys.expires_at), nowMs)
}

/** All relationships of a node, both directions: the figure `supernode_threshold` bounds. */
export function degree(reader: GraphReader, id: number): number {
  const node = reader.node(id)
  return node === undefined ? 0 : node.out.length + node.in.length
}

export function isRecallableMemory(reader: GraphReader, id: number, nowMs: number): boolean {
  return memoryRecallable(reader, recordKeys(reader), id, nowMs)
}

export interface WalkPlan {
  limits: RecallLimits
  offset: number
  nowMs: number
  /** performance.now() value past which the walk stops with outcome timeout. */
  deadline: number
  signal?: AbortSignal | undefined
  /** The caller's relationship filters (recall-filters.ts); absent: every recallable relationship. */
  relationshipAllowed?: (reader: GraphReader, rel: number) => boolean
}

function pathOf(r: Reached) {
  const memory_ids: string[] = []
  const relationship_ids: string[] = []
  for (let at: Reached | null = r; at !== null; at = at.parent) {
    memory_ids.unshift(`node--${at.id}`)
    if (at.via !== null) relationship_ids.unshift(`relationship--${at.via}`)
  }
  return { memory_ids, relationship_ids }
}

/** The window `offset .. offset + max_items` of the ranked order, within the payload budget, and the links among it. */
export function page(
  reader: GraphReader,
  plan: WalkPlan,
  order: Reached[],
  outcomes: Set<RecallOutcome>,
  depth: number,
  cost: number,
): WalkResult {
  const window = order.slice(plan.offset, plan.offset + plan.limits.max_items)
  const items: RecallItem[] = []
  const itemsJson: string[] = []
  const signals: (RankSignals | undefined)[] = []
  let bytes = 0
  /** `value` as JSON when it fits the payload budget (counted against it); null (and the outcome) when not. */
  const fitting = (value: object): string | null => {
    const json = JSON.stringify(value)
    const size = Buffer.byteLength(json)
    if (bytes + size > plan.limits.max_payload_bytes) {
      outcomes.add('payload_budget_exhausted')
      return null
    }
    bytes += size
    return json
  }
  for (const r of window) {
    const record = readMemory(reader, r.id)
    if (record === null) continue
    const item: RecallItem = {
      record,
      selection_reasons: r.reasons,
      score: r.score,
      depth: r.depth,
      selection_path: pathOf(r),
    }
    const json = fitting(item)
    if (json === null) break
    items.push(item)
    itemsJson.push(json)
    signals.push(r.signals)
  }
  /** Each returned memory's place in the working set. */
  const position = new Map(items.map((item, i) => [Number(item.record.id.slice('node--'.length)), i]))
  const found: { id: number; record: RelationshipRecord; json: string }[] = []
  const keys = recordKeys(reader)
  const threshold = plan.limits.supernode_threshold
  for (const [id, here] of position) {
    // A supernode's edges are not enumerated: its links to other returned items show from their side.
    if (degree(reader, id) > threshold) {
      outcomes.add('supernode_blocked')
      continue
    }
    for (const rel of memoryRelationshipsOf(reader, id)) {
      // Endpoints first: most edges leave the working set, and reading one parses its JSON.
      const start = reader.relStart(rel)
      const other = start === id ? reader.relEnd(rel) : start
      const there = position.get(other)
      if (there === undefined) continue
      // A link inside the set is met from both ends: it is taken at the earlier one (the payload budget
      // counts links in that order), or at the later one when the earlier is a supernode, not enumerated.
      if (there < here && degree(reader, other) <= threshold) continue
      if (!relationshipRecallable(reader, keys, rel, plan.nowMs)) continue
      if (plan.relationshipAllowed && !plan.relationshipAllowed(reader, rel)) continue
      const record = readRelationship(reader, rel)
      const json = record === null ? null : fitting(record)
      if (record !== null && json !== null) found.push({ id: rel, record, json })
    }
  }
  found.sort((a, b) => a.id - b.id)
  const consumed = plan.offset + items.length
  return {
    items,
    relationships: found.map((f) => f.record),
    itemsJson,
    relationshipsJson: found.map((f) => f.json),
    outcomes: [...outcomes],
    depth,
    cost,
    payload_bytes: bytes,
    signals,
    next_offset: items.length > 0 && order.length > consumed ? consumed : null,
  }
}
