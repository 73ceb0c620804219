/**
 * Canonical reference records in the graph. Layout (workspace `workspace--ref-canonical`, owned by this
 * module; Cypher may read it but should not write it):
 *
 * - an entity record is a node with the STIX module's labels for its type (`StixObject`, the PascalCase of
 *   the type, the cti label where one fits) and `stix_id`, `stix_type`, `stix_raw` (the record exactly as
 *   last written, JSON), `ref_revision` (integer, 1 on create, +1 per change), plus `name`/`description`/
 *   `created`/`modified` when they are strings, so Cypher, seed search, the explorer and STIX export see it;
 * - a relationship record (`relationship`/`sighting`, `base_type` RELATION, or both endpoints given as
 *   `source_ref`/`target_ref` or `from_id`/`to_id`) is a graph relationship between its endpoint nodes with
 *   the STIX module's relationship type and the same `stix_*` and `ref_revision` properties;
 * - merged sources and deleted records are removed from the graph (the engine's record history keeps their
 *   before-images); a survivor lists the ids merged into it in its raw record's `x_service_merged_ids`.
 */

import { PropertyMap } from '../graph/property-map.js'
import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { GraphReader, Interner, PropertyValue } from '../graph/types.js'
import { isRelationshipObject, nodeLabels, P, relationshipType, STIX_LABEL } from '../stix/mapping.js'

export const REF_WORKSPACE_ID = 'workspace--ref-canonical'
export const REVISION_KEY = 'ref_revision'
export const MERGED_IDS_KEY = 'x_service_merged_ids'
/** Text fields copied from the raw record to their own properties when they are strings. */
const TEXT_KEYS = [P.name, P.description, P.created, P.modified] as const

export type RawRecord = Record<string, unknown>

export interface CanonicalRecord {
  id: string
  kind: 'node' | 'relationship'
  /** Graph id of the node or relationship. */
  gid: number
  revision: number
  raw: RawRecord
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined

export const recordIdOf = (record: RawRecord): string | undefined =>
  text(record.id) ?? text(record.internal_id)
export const recordTypeOf = (record: RawRecord): string | undefined =>
  text(record.type) ?? text(record.entity_type)

export const isRelationshipRecord = (record: RawRecord): boolean =>
  isRelationshipObject(record) || (record.from_id !== undefined && record.to_id !== undefined)

const STIX_ENDPOINTS = Object.freeze({ source: 'source_ref', target: 'target_ref' })
const SIGHTING_ENDPOINTS = Object.freeze({ source: 'sighting_of_ref', target: 'where_sighted_refs' })
const REF_ENDPOINTS = Object.freeze({ source: 'from_id', target: 'to_id' })

/** The keys that name a relationship record's endpoints, in the spelling the record uses. */
export function endpointKeys(record: RawRecord): { readonly source: string; readonly target: string } {
  if (record.source_ref !== undefined || record.target_ref !== undefined) return STIX_ENDPOINTS
  if (record.type === 'sighting') return SIGHTING_ENDPOINTS
  return REF_ENDPOINTS
}

export function endpointIds(record: RawRecord): { source: unknown; target: unknown } {
  const keys = endpointKeys(record)
  const target = record[keys.target]
  return { source: record[keys.source], target: Array.isArray(target) ? target[0] : target }
}

/**
 * The ids of the names canonical records use, interned once per graph store (names are never removed from
 * a store's interner, so they stay valid; a reloaded store has a new interner and gets its own).
 */
interface InternedNames {
  label: number
  id: number
  raw: number
  revision: number
  type: number
  relType: number
  merged: number
  text: number[]
  /** Interned labels of each record type met so far. */
  labelsOf: Map<string, number[]>
  /** Interned relationship types by the record's `relationship_type` (sightings apart). */
  relTypeOf: Map<unknown, number>
}
const interned = new WeakMap<Interner, InternedNames>()
function internedNames(names: Interner): InternedNames {
  let known = interned.get(names)
  if (known === undefined) {
    known = {
      label: names.id(STIX_LABEL),
      id: names.id(P.id),
      raw: names.id(P.raw),
      revision: names.id(REVISION_KEY),
      type: names.id(P.type),
      relType: names.id(P.relType),
      merged: names.id(MERGED_IDS_KEY),
      text: TEXT_KEYS.map((key) => names.id(key)),
      labelsOf: new Map(),
      relTypeOf: new Map(),
    }
    interned.set(names, known)
  }
  return known
}

/** Revisions as stored (integers are bigints): the common small ones shared, not allocated per record. */
const SMALL_REVISIONS = Array.from({ length: 16 }, (_, i) => BigInt(i))

const SIGHTING = Symbol('sighting')

const nodeChangesOf = new WeakMap<Transaction, Map<string, number | null>>()

/**
 * Record lookups and mutations on one write transaction. Relationship records are found through an index
 * of record id -> graph relationship id that the owner keeps; changes made here are staged in `relChanges`
 * and folded into it only when the transaction's function completes.
 */
export class CanonicalGraph {
  private readonly label: number
  private readonly idKey: number
  private readonly rawKey: number
  private readonly revKey: number
  private readonly k: InternedNames
  readonly relChanges = new Map<string, number | null>()
  /** Entity records created (gid) or deleted (null) by this transaction, by record id. */
  private readonly nodeChanges: Map<string, number | null>

  constructor(
    readonly tx: Transaction,
    private readonly relIndex: ReadonlyMap<string, number>,
    /**
     * The published graph `tx` overlays, when the caller has it: a record id is then looked up there and in
     * `nodeChanges`, never in the transaction's overlay index, which indexes every property of every node
     * the transaction created (thousands in a bulk write) the first time a lookup misses the published graph.
     */
    private readonly base?: GraphReader,
  ) {
    this.k = internedNames(tx.names)
    // Shared by every CanonicalGraph on the transaction: a group commit evaluates several writes in one.
    let changes = nodeChangesOf.get(tx)
    if (changes === undefined) {
      changes = new Map()
      nodeChangesOf.set(tx, changes)
    }
    this.nodeChanges = changes
    this.label = this.k.label
    this.idKey = this.k.id
    this.rawKey = this.k.raw
    this.revKey = this.k.revision
  }

  private relGid(id: string): number | undefined {
    const staged = this.relChanges.get(id)
    if (staged !== undefined) return staged ?? undefined
    const gid = this.relIndex.get(id)
    return gid !== undefined && this.tx.relProperty(gid, this.idKey) === id ? gid : undefined
  }

  private nodeGid(id: string): number | undefined {
    if (this.base === undefined) return this.tx.firstPropertyNodeId(this.label, this.idKey, id)
    const staged = this.nodeChanges.get(id)
    if (staged !== undefined) return staged ?? undefined
    // Records keep their id and labels for life, so a published node is valid unless deleted here.
    for (const gid of this.base.propertyNodeIds(this.label, this.idKey, id)) return gid
    return undefined
  }

  /** Whether a record with this id exists (entity or relationship). */
  exists(id: string): boolean {
    return this.nodeGid(id) !== undefined || this.relGid(id) !== undefined
  }

  /** Where a record lives, without reading its raw record (existence and endpoint checks). */
  locate(id: string): { kind: CanonicalRecord['kind']; gid: number } | undefined {
    const node = this.nodeGid(id)
    if (node !== undefined) return { kind: 'node', gid: node }
    const rel = this.relGid(id)
    return rel === undefined ? undefined : { kind: 'relationship', gid: rel }
  }

  revisionOf(where: { kind: CanonicalRecord['kind']; gid: number }): number {
    const props = where.kind === 'node' ? this.tx.node(where.gid)?.props : this.tx.relProps(where.gid)
    return Number(props?.get(this.revKey) ?? 0n)
  }

  find(id: string): CanonicalRecord | undefined {
    const node = this.nodeGid(id)
    if (node !== undefined) return this.read('node', node, this.tx.node(node)?.props)
    const rel = this.relGid(id)
    if (rel !== undefined) return this.read('relationship', rel, this.tx.relProps(rel))
    return undefined
  }

  private read(
    kind: CanonicalRecord['kind'],
    gid: number,
    props: ReadonlyMap<number, PropertyValue> | undefined,
  ): CanonicalRecord | undefined {
    if (props === undefined) return undefined
    return {
      id: props.get(this.idKey) as string,
      kind,
      gid,
      revision: Number(props.get(this.revKey) ?? 0n),
      raw: JSON.parse(props.get(this.rawKey) as string) as RawRecord,
    }
  }

  /**
   * The record's properties as a PropertyMap (the transaction takes it over: no copy at publish), keys
   * interned once per transaction.
   */
  private props(id: string, raw: RawRecord, revision: number): PropertyMap {
    const k = this.k
    const keys = [this.idKey, k.type, this.rawKey, this.revKey]
    const values: PropertyValue[] = [
      id,
      recordTypeOf(raw) ?? 'unknown',
      JSON.stringify(raw),
      revision < SMALL_REVISIONS.length ? (SMALL_REVISIONS[revision] as bigint) : BigInt(revision),
    ]
    for (let i = 0; i < TEXT_KEYS.length; i++) {
      const value = raw[TEXT_KEYS[i] as string]
      if (typeof value === 'string') {
        keys.push(k.text[i] as number)
        values.push(value)
      }
    }
    if (isRelationshipRecord(raw) && typeof raw.relationship_type === 'string') {
      keys.push(k.relType)
      values.push(raw.relationship_type)
    }
    if (Array.isArray(raw[MERGED_IDS_KEY])) {
      keys.push(k.merged)
      values.push(raw[MERGED_IDS_KEY] as string[])
    }
    return PropertyMap.fromDistinct(keys, values)
  }

  createNode(id: string, raw: RawRecord, revision = 1): number {
    const type = recordTypeOf(raw) ?? 'unknown'
    let labels = this.k.labelsOf.get(type)
    if (labels === undefined) {
      labels = Object.freeze(nodeLabels(type).map((l) => this.tx.names.id(l))) as number[]
      this.k.labelsOf.set(type, labels)
    }
    // The transaction keeps its own label list (it interns them): sharing this frozen one is safe.
    const gid = this.tx.createNode(labels, this.props(id, raw, revision))
    this.nodeChanges.set(id, gid)
    return gid
  }

  createRelationship(id: string, raw: RawRecord, start: number, end: number, revision = 1): number {
    // The type follows from `relationship_type` alone, except for a sighting (keyed apart by a symbol).
    const by = raw.type === 'sighting' ? SIGHTING : raw.relationship_type
    let type = this.k.relTypeOf.get(by)
    if (type === undefined) {
      type = this.tx.names.id(relationshipType(raw))
      if (typeof by !== 'object') this.k.relTypeOf.set(by, type)
    }
    const gid = this.tx.createRelationship(type, start, end, this.props(id, raw, revision))
    this.relChanges.set(id, gid)
    return gid
  }

  /** Replaces the raw record and bumps the revision; derived properties follow the raw record. */
  rewrite(record: CanonicalRecord, raw: RawRecord): number {
    const revision = record.revision + 1
    const next = this.props(record.id, raw, revision)
    const current = record.kind === 'node' ? this.tx.node(record.gid)?.props : this.tx.relProps(record.gid)
    const set =
      record.kind === 'node'
        ? (k: number, v: PropertyValue | undefined) => this.tx.setNodeProperty(record.gid, k, v)
        : (k: number, v: PropertyValue | undefined) => this.tx.setRelationshipProperty(record.gid, k, v)
    for (const key of current?.keys() ?? []) if (!next.has(key)) set(key, undefined)
    for (const [key, value] of next) set(key, value)
    return revision
  }

  /** Relationship records attached to a node record (graph relationship ids). */
  attached(nodeGid: number): number[] {
    const node = this.tx.node(nodeGid)
    if (node === undefined) return []
    return [...new Set([...node.out, ...node.in])].filter((rel) => this.tx.relProps(rel)?.has(this.idKey))
  }

  relationshipRecord(gid: number): CanonicalRecord | undefined {
    return this.read('relationship', gid, this.tx.relProps(gid))
  }

  ends(gid: number): { start: number; end: number } {
    return { start: this.tx.relStart(gid), end: this.tx.relEnd(gid) }
  }

  deleteRelationship(record: CanonicalRecord): void {
    this.tx.deleteRelationship(record.gid)
    this.relChanges.set(record.id, null)
  }

  /** Deletes a record; an entity record takes its attached relationship records with it. */
  delete(record: CanonicalRecord): string[] {
    if (record.kind === 'relationship') {
      this.deleteRelationship(record)
      return []
    }
    const cascaded: string[] = []
    for (const rel of this.attached(record.gid)) {
      const attached = this.relationshipRecord(rel)
      if (attached === undefined) continue
      this.deleteRelationship(attached)
      cascaded.push(attached.id)
    }
    this.tx.deleteNode(record.gid)
    this.nodeChanges.set(record.id, null)
    return cascaded
  }

  /** Node records (graph ids), for merges that look for embedded references. */
  *nodeRecords(): Iterable<number> {
    yield* this.tx.labelNodeIds(this.label)
  }

  nodeRecord(gid: number): CanonicalRecord | undefined {
    return this.read('node', gid, this.tx.node(gid)?.props)
  }

  nodeGidOf(id: string): number | undefined {
    return this.nodeGid(id)
  }
}

/** Rebuilds the relationship-record index of the ref workspace from the graph (after recovery). */
export function indexRelationships(store: GraphStore): Map<string, number> {
  const index = new Map<string, number>()
  const idKey = store.names.lookup(P.id)
  if (idKey < 0) return index
  for (const rel of store.allRelIds()) {
    const id = store.relProps(rel)?.get(idKey)
    if (typeof id === 'string') index.set(id, rel)
  }
  return index
}

/** Every raw record of the workspace, sorted by id: the reconstruction corpus. */
export function rawRecords(reader: GraphReader): RawRecord[] {
  const idKey = reader.names.lookup(P.id)
  const rawKey = reader.names.lookup(P.raw)
  const revKey = reader.names.lookup(REVISION_KEY)
  if (idKey < 0 || rawKey < 0 || revKey < 0) return []
  const out: { id: string; raw: RawRecord }[] = []
  const take = (props: ReadonlyMap<number, PropertyValue> | undefined) => {
    const id = props?.get(idKey)
    const raw = props?.get(rawKey)
    if (typeof id === 'string' && typeof raw === 'string' && props?.has(revKey))
      out.push({ id, raw: JSON.parse(raw) as RawRecord })
  }
  for (const node of reader.allNodeIds()) take(reader.node(node)?.props)
  for (const rel of reader.allRelIds()) take(reader.relProps(rel))
  out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return out.map((r) => r.raw)
}
