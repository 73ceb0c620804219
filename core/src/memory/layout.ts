import type { Transaction } from '../graph/transaction.js'
import type { GraphReader, NodeRecord, PropertyValue } from '../graph/types.js'
import type { Content, Lifecycle, MemoryRecord, Provenance, RelationshipRecord } from './types.js'

/**
 * How memories live in the workspace graph, so Cypher, the explorer, record history and the WAL all see them.
 * A memory is a node labelled `Memory`; a memory relationship is a `MEMORY_RELATION` relationship with a
 * `kind` property. Scalars are plain properties (times as the RFC 3339 strings given, `version` an integer);
 * the structured parts are JSON strings (`properties_json`, `provenance_json`) beside Cypher-friendly lists
 * (`provenance_source_ids`). Absent optional fields are absent properties.
 */
export const MEMORY_LABEL = 'Memory'
export const MEMORY_RELATION = 'MEMORY_RELATION'
/** The only properties of a memory that full-text search indexes (labels and times would match everything). */
export const MEMORY_SEARCH_KEYS: ReadonlySet<string> = new Set(['text', 'kind', 'tags', 'identity_key'])

export const memoryId = (id: number): string => `node--${id}`
export const relationshipId = (id: number): string => `relationship--${id}`

export function parseId(value: string, prefix: 'node' | 'relationship'): number | null {
  const m = new RegExp(`^${prefix}--(\\d{1,15})$`).exec(value)
  return m?.[1] === undefined ? null : Number(m[1])
}

type Props = Map<number, PropertyValue>

const str = (v: PropertyValue | undefined): string | null => (typeof v === 'string' ? v : null)
const json = <T>(v: PropertyValue | undefined, fallback: T): T =>
  typeof v === 'string' ? (JSON.parse(v) as T) : fallback

function isMemoryNode(reader: GraphReader, node: NodeRecord): boolean {
  const label = reader.names.lookup(MEMORY_LABEL)
  return label >= 0 && node.labels.includes(label)
}

/** The stored fields of a memory or memory relationship, by property name (absent: undefined). */
type Stored = Partial<Record<StoredKey, PropertyValue>>
type StoredKey = (typeof STORED_KEYS)[number]
const STORED_KEYS = [
  'identity_key',
  'kind',
  'schema_version',
  'content_format',
  'text',
  'properties_json',
  'provenance_json',
  'confidence',
  'valid_from',
  'valid_until',
  'recorded_at',
  'expires_at',
  'lifecycle',
  'version',
  'tags',
] as const
const STORED: ReadonlySet<string> = new Set(STORED_KEYS)

/**
 * The record's stored fields in one pass over its properties. Recall reads a hundred records a request: a
 * lookup per field scanned the property list once per field.
 */
function storedFields(reader: GraphReader, props: ReadonlyMap<number, PropertyValue>): Stored {
  const out: Stored = {}
  props.forEach((value, key) => {
    const name = reader.names.name(key)
    if (STORED.has(name)) out[name as StoredKey] = value
  })
  return out
}

/** Confidence, validity, times, lifecycle and version: shared by memories and relationships. */
function temporal(f: Stored) {
  const confidence = f.confidence
  return {
    confidence: typeof confidence === 'number' ? confidence : null,
    valid_from: str(f.valid_from),
    valid_until: str(f.valid_until),
    recorded_at: str(f.recorded_at) ?? '',
    expires_at: str(f.expires_at),
    lifecycle: (str(f.lifecycle) ?? 'active') as Lifecycle,
    version: Number(f.version ?? 1n),
  }
}

/** The memory at a node id, or null when there is none (or the node is not a memory). */
export function readMemory(reader: GraphReader, id: number): MemoryRecord | null {
  const node = reader.node(id)
  if (node === undefined || !isMemoryNode(reader, node)) return null
  const f = storedFields(reader, node.props)
  const format = str(f.content_format) as Content['format']
  const text = str(f.text) ?? ''
  const properties = json<Record<string, unknown>>(f.properties_json, {})
  const content: Content =
    format === 'text'
      ? { format, value: text }
      : format === 'properties'
        ? { format, value: properties }
        : { format: 'text_and_properties', value: { text, properties } }
  const tags = f.tags
  return {
    id: memoryId(id),
    identity_key: str(f.identity_key),
    kind: str(f.kind) ?? '',
    schema_version: str(f.schema_version) ?? '',
    content,
    provenance: json<Provenance[]>(f.provenance_json, []),
    ...temporal(f),
    tags: Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [],
  }
}

/** The memory relationship at a relationship id, or null. */
export function readRelationship(reader: GraphReader, id: number): RelationshipRecord | null {
  const type = reader.relType(id)
  if (type < 0 || type !== reader.names.lookup(MEMORY_RELATION)) return null
  const f = storedFields(reader, reader.relProps(id) ?? new Map<number, PropertyValue>())
  return {
    id: relationshipId(id),
    identity_key: str(f.identity_key),
    source_id: memoryId(reader.relStart(id)),
    target_id: memoryId(reader.relEnd(id)),
    kind: str(f.kind) ?? '',
    properties: json<Record<string, unknown>>(f.properties_json, {}),
    provenance: json<Provenance[]>(f.provenance_json, []),
    ...temporal(f),
  }
}

function common(r: Omit<MemoryRecord | RelationshipRecord, 'id'>): [string, PropertyValue | undefined][] {
  return [
    ['identity_key', r.identity_key ?? undefined],
    ['kind', r.kind],
    ['provenance_json', JSON.stringify(r.provenance)],
    ['provenance_source_ids', [...new Set(r.provenance.map((p) => p.source_id))]],
    ['confidence', r.confidence ?? undefined],
    ['valid_from', r.valid_from ?? undefined],
    ['valid_until', r.valid_until ?? undefined],
    ['recorded_at', r.recorded_at],
    ['expires_at', r.expires_at ?? undefined],
    ['lifecycle', r.lifecycle],
    ['version', BigInt(r.version)],
  ]
}

function memoryProps(r: Omit<MemoryRecord, 'id'>): [string, PropertyValue | undefined][] {
  const c = r.content
  const text = c.format === 'text' ? c.value : c.format === 'text_and_properties' ? c.value.text : undefined
  const properties =
    c.format === 'properties' ? c.value : c.format === 'text_and_properties' ? c.value.properties : undefined
  return [
    ...common(r),
    ['schema_version', r.schema_version],
    ['content_format', c.format],
    ['text', text],
    ['properties_json', properties === undefined ? undefined : JSON.stringify(properties)],
    ['tags', [...r.tags]],
  ]
}

function relationshipProps(r: Omit<RelationshipRecord, 'id' | 'source_id' | 'target_id'>) {
  return [
    ...common(r as Omit<RelationshipRecord, 'id'>),
    ['properties_json', JSON.stringify(r.properties)],
  ] as [string, PropertyValue | undefined][]
}

function toMap(tx: Transaction, entries: [string, PropertyValue | undefined][]): Props {
  const props: Props = new Map()
  for (const [key, value] of entries) if (value !== undefined) props.set(tx.names.id(key), value)
  return props
}

export function createMemory(tx: Transaction, r: Omit<MemoryRecord, 'id'>): number {
  return tx.createNode([tx.names.id(MEMORY_LABEL)], toMap(tx, memoryProps(r)))
}

export function writeMemory(tx: Transaction, id: number, r: Omit<MemoryRecord, 'id'>): void {
  for (const [key, value] of memoryProps(r)) tx.setNodeProperty(id, tx.names.id(key), value)
}

export function createRelationship(
  tx: Transaction,
  start: number,
  end: number,
  r: Omit<RelationshipRecord, 'id'>,
): number {
  return tx.createRelationship(tx.names.id(MEMORY_RELATION), start, end, toMap(tx, relationshipProps(r)))
}

export function writeRelationship(tx: Transaction, id: number, r: Omit<RelationshipRecord, 'id'>): void {
  for (const [key, value] of relationshipProps(r)) tx.setRelationshipProperty(id, tx.names.id(key), value)
}

/** Memory relationships at a node, both directions, in id order. */
export function memoryRelationshipsOf(reader: GraphReader, nodeId: number): number[] {
  const node = reader.node(nodeId)
  const type = reader.names.lookup(MEMORY_RELATION)
  if (node === undefined || type < 0) return []
  const ids: number[] = []
  for (const rel of node.out) if (reader.relType(rel) === type) ids.push(rel)
  // A self-loop is in both lists: it is taken from `out` only.
  for (const rel of node.in)
    if (reader.relType(rel) === type && reader.relStart(rel) !== nodeId) ids.push(rel)
  return ascending(ids)
}

/** Sorted in place; small lists (most nodes) by insertion, which allocates nothing, unlike Array#sort. */
function ascending(ids: number[]): number[] {
  if (ids.length > 32) return ids.sort((a, b) => a - b)
  for (let i = 1; i < ids.length; i++) {
    const v = ids[i] as number
    let j = i - 1
    for (; j >= 0 && (ids[j] as number) > v; j--) ids[j + 1] = ids[j] as number
    ids[j + 1] = v
  }
  return ids
}

/** Memories with an identity key (the property index answers it). */
export function memoryByIdentity(reader: GraphReader, identityKey: string): number | null {
  const label = reader.names.lookup(MEMORY_LABEL)
  const key = reader.names.lookup('identity_key')
  if (label < 0 || key < 0) return null
  for (const id of reader.propertyNodeIds(label, key, identityKey)) return id
  return null
}

/** Provenance merged without repeats, in first-seen order. */
export function mergeProvenance(a: readonly Provenance[], b: readonly Provenance[]): Provenance[] {
  const seen = new Set<string>()
  const out: Provenance[] = []
  for (const p of [...a, ...b]) {
    const key = JSON.stringify([p.source_id, p.locator, p.observed_at])
    if (seen.has(key)) continue
    seen.add(key)
    out.push(p)
  }
  return out
}
