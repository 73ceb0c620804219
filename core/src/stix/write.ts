/**
 * Writes parsed STIX records into one write transaction: nodes (created/updated/duplicate by stored id),
 * evidence records, then relationship edges whose endpoints resolve in the bundle or the graph.
 */
import type { Transaction } from '../graph/transaction.js'
import type { PropertyValue } from '../graph/types.js'
import type { ParsedRecord } from './bundle.js'
import { confidenceOf } from './bundle.js'
import { canonicalize } from './canonical.js'
import type { Annotation, EvidenceRecord } from './evidence.js'
import { isOlderVersion, type VersionRecorder } from './import-versions.js'
import {
  endpoints,
  nodeLabels,
  P,
  relationshipType,
  STIX_EVIDENCE_LABEL,
  STIX_LABEL,
  VOCABULARY_PROPERTIES,
} from './mapping.js'
import type { ImportOutcome, OutcomeStatus } from './outcomes.js'

export interface Unresolved {
  id: string
  reference: string
}

/**
 * One instance per distinct short value within an import. JSON.parse makes a new string for every value
 * longer than 10 characters, so each of a bundle's 200,000 relationships kept its own "relationship" and
 * two copies of a shared timestamp: ~30 MB of identical strings per 300,000 records.
 */
class Interner {
  private readonly seen = new Map<string, string>()

  get(value: string): string {
    if (value.length > 64) return value
    const known = this.seen.get(value)
    if (known !== undefined) return known
    this.seen.set(value, value)
    return value
  }
}

/** Flat, queryable properties of a record; the exact object stays in `stix_raw`. */
function recordProps(
  record: ParsedRecord,
  annotation: Annotation | undefined,
  interner: Interner,
): Record<string, PropertyValue> {
  const o = record.object
  const props: Record<string, PropertyValue> = {
    [P.id]: record.id,
    [P.type]: interner.get(record.type),
    [P.raw]: record.raw,
    [P.status]: 'candidate',
  }
  // Empty lists and derivable values are not stored: every node property is indexed under every label.
  if ((annotation?.evidence_refs?.length ?? 0) > 0)
    props[P.evidenceRefs] = [...(annotation?.evidence_refs ?? [])].sort()
  for (const key of [P.name, P.description] as const) {
    const value = o[key]
    if (typeof value === 'string') props[key] = value
  }
  for (const key of [P.created, P.modified] as const) {
    const value = o[key]
    if (typeof value === 'string') props[key] = interner.get(value)
  }
  const confidence =
    annotation?.confidence !== undefined ? annotation.confidence / 100 : confidenceOf(o, record.id)
  if (confidence !== undefined) props[P.confidence] = confidence
  if (annotation !== undefined) props[P.annotated] = true
  if (record.relationship && typeof o.relationship_type === 'string')
    props[P.relType] = interner.get(o.relationship_type)
  const refs = o.external_references
  const external = Array.isArray(refs) ? refs.find((r) => typeof r?.external_id === 'string') : undefined
  if (external !== undefined) props[P.externalId] = external.external_id as string
  for (const key of VOCABULARY_PROPERTIES) {
    const value = o[key]
    if (typeof value === 'string') props[key] = interner.get(value)
    else if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string'))
      props[key] = value.map((v: string) => interner.get(v))
  }
  return props
}

const sameValue = (a: PropertyValue | undefined, b: PropertyValue | undefined): boolean =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((v, i) => v === b[i]) : a === b

export class StixWriter {
  readonly outcomes: ImportOutcome[] = []
  readonly unresolved: Unresolved[] = []
  private readonly label: number
  private readonly idKey: number
  private readonly interner = new Interner()

  constructor(
    private readonly tx: Transaction,
    private readonly annotations: ReadonlyMap<string, Annotation>,
    /** Records versions and their date added (absent: versions are not kept). */
    private readonly versions?: VersionRecorder,
  ) {
    this.label = tx.names.id(STIX_LABEL)
    this.idKey = tx.names.id(P.id)
  }

  findNode(stixId: string): number | undefined {
    return this.tx.firstPropertyNodeId(this.label, this.idKey, stixId)
  }

  private propMap(props: Record<string, PropertyValue>): Map<number, PropertyValue> {
    return new Map(Object.entries(props).map(([k, v]) => [this.tx.names.id(k), v]))
  }

  /**
   * Same raw, and (while still a candidate) the same confidence and evidence refs: duplicate. Reviewed
   * records (status moved on) with the same raw stay duplicates whatever the annotation says.
   */
  private decide(
    current: ReadonlyMap<number, PropertyValue>,
    next: Record<string, PropertyValue>,
  ): OutcomeStatus {
    const get = (key: string) => current.get(this.tx.names.id(key))
    if (get(P.raw) !== next[P.raw]) return 'updated'
    if (get(P.status) !== 'candidate') return 'duplicate'
    return sameValue(get(P.confidence), next[P.confidence]) &&
      sameValue(get(P.evidenceRefs), next[P.evidenceRefs])
      ? 'duplicate'
      : 'updated'
  }

  /** The stored record's version (`modified`, else `created`), from its flat properties. */
  private storedVersion(current: ReadonlyMap<number, PropertyValue>): string {
    for (const key of [P.modified, P.created]) {
      const value = current.get(this.tx.names.id(key))
      if (typeof value === 'string') return value
    }
    return ''
  }

  /**
   * STIX 2.1: the latest `modified` is the current version. An older one never replaces it: it counts as a
   * duplicate and is kept as a version. Returns true when the record was handled so.
   */
  private keptAsOlder(record: ParsedRecord, current: ReadonlyMap<number, PropertyValue>): boolean {
    if (!isOlderVersion(record.object, this.storedVersion(current))) return false
    this.versions?.older(record)
    this.outcome(record, 'duplicate')
    return true
  }

  private currentRaw(current: ReadonlyMap<number, PropertyValue>): string | undefined {
    const value = current.get(this.tx.names.id(P.raw))
    return typeof value === 'string' ? value : undefined
  }

  private outcome(record: ParsedRecord, status: OutcomeStatus): void {
    this.outcomes.push({
      id: record.id,
      record_type: record.relationship ? 'relationship' : 'entity',
      status,
    })
  }

  writeNode(record: ParsedRecord): void {
    if (record.repeat) {
      this.outcome(record, 'duplicate')
      return
    }
    const props = recordProps(record, this.annotations.get(record.id), this.interner)
    const labels = nodeLabels(record.type).map((l) => this.tx.names.id(l))
    const existing = this.findNode(record.id)
    if (existing === undefined) {
      this.tx.createNode(labels, this.propMap(props))
      this.outcome(record, 'created')
      this.versions?.current(record, 'created', undefined)
      return
    }
    const node = this.tx.node(existing)
    if (node === undefined) {
      this.outcome(record, 'failed')
      return
    }
    if (this.keptAsOlder(record, node.props)) return
    const status = this.decide(node.props, props)
    const replaced = this.currentRaw(node.props)
    if (status === 'updated') {
      for (const label of labels) this.tx.addLabel(existing, label)
      this.replaceProps(existing, node.props, props, (key, value) =>
        this.tx.setNodeProperty(existing, key, value),
      )
    }
    this.outcome(record, status)
    this.versions?.current(record, status, status === 'updated' ? replaced : undefined)
  }

  /** Sets every managed property and drops the flat ones the new version no longer has. */
  private replaceProps(
    _id: number,
    current: ReadonlyMap<number, PropertyValue>,
    next: Record<string, PropertyValue>,
    set: (key: number, value: PropertyValue | undefined) => unknown,
  ): void {
    const managed = [
      P.name,
      P.description,
      P.created,
      P.modified,
      P.confidence,
      P.annotated,
      P.externalId,
      P.evidenceRefs,
      ...VOCABULARY_PROPERTIES,
    ]
    for (const key of managed)
      if (next[key] === undefined && current.has(this.tx.names.id(key))) set(this.tx.names.id(key), undefined)
    for (const [key, value] of Object.entries(next)) {
      const k = this.tx.names.id(key)
      if (!sameValue(current.get(k), value)) set(k, value)
    }
  }

  writeRelationship(record: ParsedRecord): void {
    if (record.repeat) {
      this.outcome(record, 'duplicate')
      return
    }
    const { source, target } = endpoints(record.object)
    const ends: number[] = []
    for (const ref of [source, target]) {
      const node = typeof ref === 'string' ? this.findNode(ref) : undefined
      if (node === undefined) {
        this.unresolved.push({ id: record.id, reference: typeof ref === 'string' ? ref : '<missing>' })
        return
      }
      ends.push(node)
    }
    const [start, end] = ends as [number, number]
    const props = recordProps(record, this.annotations.get(record.id), this.interner)
    const existing = this.findEdge(start, record.id)
    if (existing === undefined) {
      this.tx.createRelationship(
        this.tx.names.id(relationshipType(record.object)),
        start,
        end,
        this.propMap(props),
      )
      this.outcome(record, 'created')
      this.versions?.current(record, 'created', undefined)
      return
    }
    const current = this.tx.relProps(existing) ?? new Map()
    if (this.keptAsOlder(record, current)) return
    const status = this.decide(current, props)
    const replaced = this.currentRaw(current)
    if (status === 'updated')
      this.replaceProps(existing, current, props, (key, value) =>
        this.tx.setRelationshipProperty(existing, key, value),
      )
    this.outcome(record, status)
    this.versions?.current(record, status, status === 'updated' ? replaced : undefined)
  }

  /** Edges have no property index: a relationship is found among its source node's outgoing edges. */
  private findEdge(start: number, stixId: string): number | undefined {
    const node = this.tx.node(start)
    for (const rel of node?.out ?? []) if (this.tx.relProperty(rel, this.idKey) === stixId) return rel
    return undefined
  }

  writeEvidence(record: EvidenceRecord): void {
    const label = this.tx.names.id(STIX_EVIDENCE_LABEL)
    const key = this.tx.names.id(P.evidenceId)
    const raw = canonicalize(record)
    const props: Record<string, PropertyValue> = {
      [P.evidenceId]: record.id,
      [P.evidenceRaw]: raw,
      source_id: record.source_id,
      content_sha256: record.content_sha256,
      locator_type: String(record.locator.type),
      locator: canonicalize(record.locator),
    }
    for (const id of this.tx.propertyNodeIds(label, key, record.id)) {
      const current = this.tx.node(id)?.props ?? new Map()
      this.replaceProps(id, current, props, (k, v) => this.tx.setNodeProperty(id, k, v))
      return
    }
    this.tx.createNode([label], this.propMap(props))
  }
}
