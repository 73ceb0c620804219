/**
 * Evaluates write operations against the canonical graph (FACTS §8): each item is checked completely before
 * it changes anything, so a failed item leaves no trace; an atomic batch stops at its first failure and the
 * caller discards the whole transaction.
 */
import { collectRefs } from '../stix/mapping.js'
import { mergePatch } from './merge-patch.js'
import {
  type CanonicalGraph,
  type CanonicalRecord,
  endpointIds,
  endpointKeys,
  isRelationshipRecord,
  MERGED_IDS_KEY,
  type RawRecord,
  recordIdOf,
  recordTypeOf,
} from './records.js'
import type { BulkItem, MergeRequest } from './request.js'

export type ItemStatus = 'applied' | 'conflict' | 'rejected' | 'retryable' | 'aborted'

export interface ItemResult {
  operation_id: string
  id: string | null
  status: ItemStatus
  before_revision: number | null
  after_revision: number | null
  diagnostic: string | null
}

export interface MergeData {
  target_id: string
  target_revision: number
  deleted_source_ids: string[]
  redirected_relationship_ids: string[]
  redirected_reference_ids: string[]
  deduplicated_relationship_ids: string[]
  conflict_count: number
}

/** The canonical `response` the reference must reproduce exactly. */
export type WriteResponse =
  | { response: 'write'; data: { id: string; revision: number } }
  | { response: 'bulk'; data: { results: ItemResult[] } }
  | { response: 'merge'; data: MergeData }

export interface WriteFailure {
  code: 'CONFLICT' | 'INVALID_REQUEST' | 'BACKEND_UNAVAILABLE'
  message: string
  retryable: boolean
}

/** Keys that carry access metadata: unioned by merges, the only keys an access_policy_update may touch. */
export const ACCESS_KEYS = new Set([
  'object_marking_refs',
  'objectMarking',
  'granted_refs',
  'objectOrganization',
  'authorized_members',
  'restricted_members',
  'x_opencti_granted_refs',
])
/** Keys that carry alternative identifiers, unioned by merges. */
const IDENTIFIER_KEYS = ['x_opencti_stix_ids', 'stix_ids', 'aliases', 'x_opencti_aliases', 'x_mitre_aliases']
const MERGED_STIX_IDS = 'x_opencti_stix_ids'

const DIAGNOSTIC_MAX = 512
const diag = (text: string): string => (text.length > DIAGNOSTIC_MAX ? text.slice(0, DIAGNOSTIC_MAX) : text)

export const FAILURE_OF: Record<Exclude<ItemStatus, 'applied' | 'aborted'>, WriteFailure['code']> = {
  conflict: 'CONFLICT',
  rejected: 'INVALID_REQUEST',
  retryable: 'BACKEND_UNAVAILABLE',
}

/** An item that failed its checks: nothing of it was applied. */
class ItemFailure {
  constructor(
    readonly status: 'conflict' | 'rejected' | 'retryable',
    readonly message: string,
    readonly before: number | null = null,
  ) {}
}

const reject = (message: string) => new ItemFailure('rejected', message)

function checkRevision(record: CanonicalRecord, expected: number | null | undefined): ItemFailure | null {
  if (expected === undefined || expected === null || expected === record.revision) return null
  return new ItemFailure(
    'conflict',
    `stale revision for ${record.id}: expected ${expected}, current ${record.revision}`,
    record.revision,
  )
}

/**
 * The audit outcome of each record an item touched (merges report survivors and tombstones), as the audit
 * row it becomes: [before_revision, after_revision, outcome].
 */
export type AuditNote = [before: number | null, after: number | null, outcome: string]

/** The row of a created record, shared (a bulk create has thousands; rows are never changed). */
const CREATED: AuditNote = Object.freeze([null, 1, 'applied']) as unknown as AuditNote

export class WriteEvaluator {
  readonly audits: AuditNote[] = []
  constructor(private readonly graph: CanonicalGraph) {}

  private note(before: number | null, after: number | null, outcome: string): void {
    this.audits.push(
      before === null && after === 1 && outcome === 'applied' ? CREATED : [before, after, outcome],
    )
  }

  /** Runs one bulk-shaped item; returns its result (applied, or a failure that changed nothing). */
  item(item: BulkItem, operationId: string): ItemResult {
    try {
      const done = this.apply(item)
      this.note(done.before, done.after, 'applied')
      return {
        operation_id: operationId,
        id: done.id,
        status: 'applied',
        before_revision: done.before,
        after_revision: done.after,
        diagnostic: null,
      }
    } catch (error) {
      if (!(error instanceof ItemFailure)) throw error
      const id = 'id' in item ? item.id : (recordIdOf(item.record) ?? null)
      if (id !== null) this.note(error.before, null, error.status)
      return {
        operation_id: operationId,
        id,
        status: error.status,
        before_revision: error.before,
        after_revision: null,
        diagnostic: diag(error.message),
      }
    }
  }

  private apply(item: BulkItem): { id: string; before: number | null; after: number | null } {
    switch (item.operation) {
      case 'create':
        return this.create(item.record)
      case 'update':
        return this.update(item.id, item.patch, item.expected_revision, false)
      case 'access_policy_update':
        return this.update(item.id, item.patch, item.expected_revision, true)
      case 'delete':
        return this.remove(item.id, item.expected_revision)
    }
  }

  private create(record: RawRecord) {
    const id = recordIdOf(record)
    if (id === undefined) throw reject('a created record needs a non-empty id or internal_id')
    if (recordTypeOf(record) === undefined) throw reject(`record ${id} needs a non-empty type or entity_type`)
    // The usual create names a new id: one lookup each way, no location object (a bulk write makes thousands).
    if (this.graph.exists(id)) {
      const existing = this.graph.locate(id) as NonNullable<ReturnType<CanonicalGraph['locate']>>
      throw new ItemFailure('conflict', `record ${id} already exists`, this.graph.revisionOf(existing))
    }
    if (!isRelationshipRecord(record)) {
      this.graph.createNode(id, record)
      return { id, before: null, after: 1 }
    }
    const { source, target } = endpointIds(record)
    if (typeof source !== 'string' || typeof target !== 'string')
      throw reject(`relationship ${id} needs string source and target ids`)
    this.graph.createRelationship(id, record, this.endpoint(id, source), this.endpoint(id, target))
    return { id, before: null, after: 1 }
  }

  /** An endpoint must be an entity record that exists now (a missing one may arrive later: retryable). */
  private endpoint(id: string, endpoint: string): number {
    const gid = this.graph.nodeGidOf(endpoint)
    if (gid !== undefined) return gid
    if (this.graph.exists(endpoint))
      throw reject(`relationship ${id}: endpoint ${endpoint} is a relationship record`)
    throw new ItemFailure('retryable', `relationship ${id}: endpoint ${endpoint} does not exist`)
  }

  private update(id: string, patch: RawRecord, expected: number | null | undefined, accessOnly: boolean) {
    const record = this.graph.find(id)
    if (record === undefined) throw reject(`no record ${id}`)
    const stale = checkRevision(record, expected)
    if (stale !== null) throw stale
    if (accessOnly) {
      const other = Object.keys(patch).find((key) => !ACCESS_KEYS.has(key))
      if (other !== undefined)
        throw reject(`access_policy_update may only change access metadata, not ${other}`)
    }
    const next = mergePatch(record.raw, patch) as RawRecord
    for (const key of ['id', 'internal_id', 'type', 'entity_type', 'relationship_type'])
      if (JSON.stringify(next[key]) !== JSON.stringify(record.raw[key]))
        throw reject(`a patch may not change ${key} of ${id}`)
    if (record.kind === 'relationship') {
      const before = endpointIds(record.raw)
      const after = endpointIds(next)
      if (before.source !== after.source || before.target !== after.target)
        throw reject(`a patch may not move the endpoints of relationship ${id}`)
    }
    const after = this.graph.rewrite(record, next)
    return { id, before: record.revision, after }
  }

  private remove(id: string, expected: number | null | undefined) {
    const record = this.graph.find(id)
    if (record === undefined) throw reject(`no record ${id}`)
    const stale = checkRevision(record, expected)
    if (stale !== null) throw stale
    this.graph.delete(record)
    return { id, before: record.revision, after: null }
  }

  /**
   * Merge: the target survives with its identity; identifiers and access metadata of the sources are
   * unioned into it; relationship records and embedded `*_ref(s)` pointing at a source are redirected to
   * the target; redirected relationships equivalent to one already there (same type and endpoints) are
   * folded into the kept one, whose access metadata takes the union (never less restrictive); the sources
   * are removed and listed in the survivor's `x_service_merged_ids`.
   */
  merge(request: MergeRequest): { data: MergeData } | { failure: WriteFailure } {
    const failure = (status: ItemFailure['status'], message: string) => ({
      failure: { code: FAILURE_OF[status], message: diag(message), retryable: status === 'retryable' },
    })
    const target = this.graph.find(request.target_id)
    if (target === undefined) return failure('rejected', `no record ${request.target_id}`)
    if (target.kind !== 'node') return failure('rejected', `${target.id} is a relationship record`)
    const expected = request.expected_revisions ?? {}
    const sources: CanonicalRecord[] = []
    for (const id of request.source_ids) {
      if (id === target.id) return failure('rejected', 'the target cannot be one of its sources')
      const source = this.graph.find(id)
      if (source === undefined) return failure('rejected', `no record ${id}`)
      if (source.kind !== 'node') return failure('rejected', `${id} is a relationship record`)
      sources.push(source)
    }
    for (const record of [target, ...sources]) {
      const stale = checkRevision(record, expected[record.id])
      if (stale !== null) return failure('conflict', stale.message)
    }

    const sourceIds = new Set(sources.map((s) => s.id))
    const redirect = (value: unknown): unknown =>
      typeof value === 'string' && sourceIds.has(value) ? target.id : value

    // The survivor: identifiers, access metadata and provenance unioned; conflicting scalars keep the target's.
    const survivor: RawRecord = structuredClone(target.raw)
    let conflicts = 0
    const union = (key: string, values: unknown[]) => {
      const current = Array.isArray(survivor[key]) ? (survivor[key] as unknown[]) : []
      const seen = new Set(current.map((v) => JSON.stringify(v)))
      const merged = [...current]
      for (const value of values)
        if (!seen.has(JSON.stringify(value))) {
          seen.add(JSON.stringify(value))
          merged.push(value)
        }
      if (merged.length > 0) survivor[key] = merged
    }
    for (const source of sources) {
      for (const key of [...IDENTIFIER_KEYS, ...ACCESS_KEYS])
        if (Array.isArray(source.raw[key])) union(key, source.raw[key] as unknown[])
      union(MERGED_STIX_IDS, [source.id])
      union(MERGED_IDS_KEY, [source.id, ...((source.raw[MERGED_IDS_KEY] as unknown[]) ?? [])])
      for (const [key, value] of Object.entries(source.raw)) {
        if (key === 'id' || key === 'internal_id' || IDENTIFIER_KEYS.includes(key) || ACCESS_KEYS.has(key))
          continue
        if (key === MERGED_IDS_KEY) continue
        if (survivor[key] === undefined) survivor[key] = value
        else if (JSON.stringify(survivor[key]) !== JSON.stringify(value)) conflicts++
      }
    }
    const targetRevision = this.graph.rewrite(target, survivor)
    this.note(target.revision, targetRevision, 'merged_survivor')

    // Relationship records of the sources move to the target (an edge cannot change ends: re-created).
    const redirectedRels: string[] = []
    const dedup: string[] = []
    const keptByShape = new Map<string, CanonicalRecord>()
    const shape = (raw: RawRecord, start: number, end: number) =>
      JSON.stringify([raw.relationship_type ?? raw.type, start, end])
    for (const rel of this.graph.attached(target.gid)) {
      const record = this.graph.relationshipRecord(rel)
      if (record === undefined) continue
      const ends = this.graph.ends(rel)
      const key = shape(record.raw, ends.start, ends.end)
      const kept = keptByShape.get(key)
      if (kept === undefined || record.id < kept.id) keptByShape.set(key, record)
    }
    const moves: { record: CanonicalRecord; start: number; end: number; raw: RawRecord }[] = []
    for (const source of sources) {
      for (const rel of this.graph.attached(source.gid)) {
        const record = this.graph.relationshipRecord(rel)
        if (record === undefined || moves.some((m) => m.record.id === record.id)) continue
        const ends = this.graph.ends(rel)
        const keys = endpointKeys(record.raw)
        const raw: RawRecord = { ...record.raw }
        raw[keys.source] = redirect(raw[keys.source])
        raw[keys.target] = Array.isArray(raw[keys.target])
          ? (raw[keys.target] as unknown[]).map(redirect)
          : redirect(raw[keys.target])
        const start = sourceIds.has(this.idOfNode(ends.start)) ? target.gid : ends.start
        const end = sourceIds.has(this.idOfNode(ends.end)) ? target.gid : ends.end
        moves.push({ record, start, end, raw })
      }
    }
    moves.sort((a, b) => (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0))
    for (const move of moves) {
      const key = shape(move.raw, move.start, move.end)
      const kept = keptByShape.get(key)
      this.graph.deleteRelationship(move.record)
      if (kept !== undefined) {
        // Equivalent edge already on the survivor: fold this one in, keeping the stricter access metadata.
        const access: RawRecord = {}
        for (const k of ACCESS_KEYS)
          if (Array.isArray(move.record.raw[k])) {
            const current = Array.isArray(kept.raw[k]) ? (kept.raw[k] as unknown[]) : []
            const all = [...current]
            for (const v of move.record.raw[k] as unknown[]) if (!all.includes(v)) all.push(v)
            if (all.length !== current.length) access[k] = all
          }
        if (Object.keys(access).length > 0) {
          const raw = { ...kept.raw, ...access }
          const revision = this.graph.rewrite(kept, raw)
          keptByShape.set(key, { ...kept, raw, revision })
        }
        dedup.push(move.record.id)
        this.note(move.record.revision, null, 'applied')
        continue
      }
      const gid = this.graph.createRelationship(
        move.record.id,
        move.raw,
        move.start,
        move.end,
        move.record.revision + 1,
      )
      keptByShape.set(key, { ...move.record, gid, raw: move.raw, revision: move.record.revision + 1 })
      redirectedRels.push(move.record.id)
      this.note(move.record.revision, move.record.revision + 1, 'applied')
    }

    // Embedded references in other entity records.
    const redirectedRefs: string[] = []
    for (const gid of [...this.graph.nodeRecords()]) {
      if (gid === target.gid || sources.some((s) => s.gid === gid)) continue
      const record = this.graph.nodeRecord(gid)
      if (record === undefined) continue
      const refs = collectRefs(record.raw)
      if (![...refs].some((ref) => sourceIds.has(ref))) continue
      const raw = rewriteRefs(record.raw, redirect) as RawRecord
      const after = this.graph.rewrite(record, raw)
      redirectedRefs.push(record.id)
      this.note(record.revision, after, 'applied')
    }
    redirectedRefs.sort()

    for (const source of sources) {
      this.graph.delete(source)
      this.note(source.revision, null, 'merged_source_tombstoned')
    }
    return {
      data: {
        target_id: target.id,
        target_revision: targetRevision,
        deleted_source_ids: [...sourceIds].sort(),
        redirected_relationship_ids: redirectedRels,
        redirected_reference_ids: redirectedRefs,
        deduplicated_relationship_ids: dedup.sort(),
        conflict_count: conflicts,
      },
    }
  }

  private idOfNode(gid: number): string {
    return this.graph.nodeRecord(gid)?.id ?? ''
  }
}

/** Rewrites `*_ref` / `*_refs` values at any depth (the same keys `collectRefs` reads). */
function rewriteRefs(value: unknown, redirect: (v: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, redirect))
  if (value === null || typeof value !== 'object') return value
  const out: RawRecord = {}
  for (const [key, item] of Object.entries(value as RawRecord)) {
    if (key.endsWith('_ref')) out[key] = redirect(item)
    else if (key.endsWith('_refs') && Array.isArray(item)) out[key] = [...new Set(item.map(redirect))]
    else out[key] = rewriteRefs(item, redirect)
  }
  return out
}
