import type { GraphReader } from '../graph/types.js'
import { invalid, memoryError, notFound } from './errors.js'
import {
  memoryByIdentity,
  memoryRelationshipsOf,
  mergeProvenance,
  parseId,
  readMemory,
  readRelationship,
} from './layout.js'
import type { Mutation } from './mutation.js'
import type { ForgetInput, RelateInput, RememberInput, UpdateInput } from './request.js'
import type { MemoryRecord, RelationshipRecord } from './types.js'

// remember, relate, update and forget: each reads what it needs in the mutation's transaction and saves
// through it, so the version log and the receipt commit with the records.

export function remember(m: Mutation, input: RememberInput): [string, object] {
  const { tx } = m
  const existing = input.identity_key === null ? null : memoryByIdentity(tx, input.identity_key)
  const prior = existing === null ? null : readMemory(tx, existing)
  const record: Omit<MemoryRecord, 'id'> = {
    identity_key: input.identity_key,
    kind: input.kind,
    schema_version: input.schema_version,
    content: input.content,
    provenance: mergeProvenance(prior?.provenance ?? [], input.provenance),
    confidence: input.confidence,
    valid_from: input.valid_from,
    valid_until: input.valid_until,
    recorded_at: m.now,
    expires_at: input.expires_at,
    lifecycle: 'active',
    version: (prior?.version ?? 0) + 1,
    tags: [...new Set(input.tags)],
  }
  const saved = m.saveMemory(existing, record, {
    evidence_source_ids: input.provenance.map((p) => p.source_id),
  })
  return ['remember', { record: saved, receipt: m.receipt(saved.id, saved.version) }]
}

/** A memory of this workspace that is not tombstoned; anything else is the same NOT_FOUND. */
export function visibleMemory(reader: GraphReader, id: string): { node: number; record: MemoryRecord } {
  const node = parseId(id, 'node')
  const record = node === null ? null : readMemory(reader, node)
  if (node === null || record === null || record.lifecycle === 'tombstoned') throw notFound('memory', id)
  return { node, record }
}

export function relate(m: Mutation, input: RelateInput): [string, object] {
  const { tx } = m
  const source = visibleMemory(tx, input.source_id)
  const target = visibleMemory(tx, input.target_id)
  let existing: number | null = null
  if (input.identity_key !== null) {
    const known = m.relationshipByIdentity(input.identity_key)
    existing = known === undefined ? null : parseId(known, 'relationship')
    const prior = existing === null ? null : readRelationship(tx, existing)
    if (prior === null) existing = null
    else if (prior.source_id !== input.source_id || prior.target_id !== input.target_id)
      throw invalid('identity_key names a relationship between other memories')
  } else {
    existing =
      memoryRelationshipsOf(tx, source.node).find((rel) => {
        const r = readRelationship(tx, rel)
        return (
          r !== null &&
          r.identity_key === null &&
          r.target_id === input.target_id &&
          r.kind === input.kind &&
          r.source_id === input.source_id
        )
      }) ?? null
  }
  const prior = existing === null ? null : readRelationship(tx, existing)
  const record: Omit<RelationshipRecord, 'id'> = {
    identity_key: input.identity_key,
    source_id: input.source_id,
    target_id: input.target_id,
    kind: input.kind,
    properties: input.properties,
    provenance: mergeProvenance(prior?.provenance ?? [], input.provenance),
    confidence: input.confidence,
    valid_from: input.valid_from,
    valid_until: input.valid_until,
    recorded_at: m.now,
    expires_at: input.expires_at,
    lifecycle: input.lifecycle,
    version: (prior?.version ?? 0) + 1,
  }
  const saved = m.saveRelationship(existing, { start: source.node, end: target.node }, record, {
    evidence_source_ids: input.provenance.map((p) => p.source_id),
  })
  return ['relate', { relationship: saved, receipt: m.receipt(saved.id, saved.version) }]
}

export function update(m: Mutation, input: UpdateInput): [string, object] {
  const { tx } = m
  const { patch, target } = input
  const stale = (current: number) => {
    if (input.expected_version !== null && input.expected_version !== current)
      throw memoryError(
        'VERSION_CONFLICT',
        `${target.id} is at version ${current}, not the expected ${input.expected_version}`,
      )
  }
  const log = { evidence_source_ids: patch.add_provenance.map((p) => p.source_id) }
  /** The fields a patch changes on memories and relationships alike. */
  const patched = (prior: MemoryRecord | RelationshipRecord) => {
    stale(prior.version)
    return {
      confidence: patch.confidence ?? prior.confidence,
      provenance: mergeProvenance(prior.provenance, patch.add_provenance),
      lifecycle: patch.lifecycle ?? prior.lifecycle,
      expires_at: patch.expires_at ?? prior.expires_at,
      recorded_at: m.now,
      version: prior.version + 1,
    }
  }
  if (target.kind === 'relationship') {
    if (patch.content !== null || patch.add_tags.length > 0)
      throw invalid('a relationship has no content or tags to patch')
    const id = parseId(target.id, 'relationship')
    const prior = id === null ? null : readRelationship(tx, id)
    if (id === null || prior === null) throw notFound('relationship', target.id)
    const { id: _id, ...rest } = prior
    const saved = m.saveRelationship(id, null, { ...rest, ...patched(prior) }, log)
    return ['update_relationship', { relationship: saved, receipt: m.receipt(saved.id, saved.version) }]
  }
  const id = parseId(target.id, 'node')
  const prior = id === null ? null : readMemory(tx, id)
  if (id === null || prior === null) throw notFound('memory', target.id)
  const { id: _id, ...rest } = prior
  const saved = m.saveMemory(
    id,
    {
      ...rest,
      ...patched(prior),
      content: patch.content ?? prior.content,
      tags: [...new Set([...prior.tags, ...patch.add_tags])],
    },
    log,
  )
  return ['update', { record: saved, receipt: m.receipt(saved.id, saved.version) }]
}

export function forget(m: Mutation, input: ForgetInput): [string, object] {
  const { tx } = m
  const id = parseId(input.memory_id, 'node')
  const prior = id === null ? null : readMemory(tx, id)
  if (id === null || prior === null) throw notFound('memory', input.memory_id)
  const { id: _id, ...rest } = prior
  const expire = input.mode === 'expire'
  const saved = m.saveMemory(
    id,
    {
      ...rest,
      lifecycle: expire ? 'expired' : 'tombstoned',
      expires_at: expire ? input.expires_at : prior.expires_at,
      recorded_at: m.now,
      version: prior.version + 1,
    },
    // Application forgetting, not regulatory erasure: the record and its history stay for trace.
    { policy_decisions: [`forget_mode_${input.mode}`], reason: input.reason },
  )
  return ['forget', { receipt: m.receipt(saved.id, saved.version), mode: input.mode }]
}
