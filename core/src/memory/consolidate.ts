import type { GraphReader } from '../graph/types.js'
import { sha256 } from './envelope.js'
import { memoryError } from './errors.js'
import { memoryRelationshipsOf, readRelationship } from './layout.js'
import type { Mutation } from './mutation.js'
import { visibleMemory } from './mutations.js'
import { type ConsolidateInput, canonicalJson } from './request.js'
import type { MemoryRecord, Receipt } from './types.js'

// Consolidation: a proposal is a pure read; applying an approved one supersedes the originals (never deletes
// them) and links each to the canonical memory.

export function proposalOf(reader: GraphReader, workspace: string, input: ConsolidateInput) {
  const canonicalId = input.canonical_id as string
  const records = input.memory_ids.map((id) => visibleMemory(reader, id).record)
  const canonical = records.find((r) => r.id === canonicalId) as MemoryRecord
  const disagreement_ids = records
    .filter((r) => r.id !== canonicalId && canonicalJson(r.content) !== canonicalJson(canonical.content))
    .map((r) => r.id)
  const proposal_id = `consolidation--${sha256(
    JSON.stringify([workspace, input.memory_ids, canonicalId, input.preserve_disagreements]),
  ).slice(0, 24)}`
  return {
    proposal_id,
    applied: false,
    canonical_id: canonicalId,
    originals_retained: true,
    disagreements_retained: input.preserve_disagreements,
    receipt: null as Receipt | null,
    memory_ids: input.memory_ids,
    superseded_ids: input.memory_ids.filter((id) => id !== canonicalId),
    disagreement_ids,
  }
}

export function applyConsolidation(m: Mutation, input: ConsolidateInput): [string, object] {
  const { tx } = m
  const mode = input.mode as Extract<ConsolidateInput['mode'], { mode: 'apply_approved' }>
  const proposal = proposalOf(tx, m.context.workspace_id, input)
  if (mode.proposal_id !== proposal.proposal_id)
    throw memoryError(
      'POLICY_APPROVAL_REQUIRED',
      'apply_approved must repeat the exact candidate set and canonical identity of an approved proposal',
    )
  if (!input.preserve_disagreements)
    throw memoryError('POLICY_APPROVAL_REQUIRED', 'consolidation that drops disagreements is destructive')
  const canonical = visibleMemory(tx, proposal.canonical_id)
  const policy = [`approval_policy:${mode.approval_policy}`, 'disagreements_preserved', 'originals_retained']
  const relationshipIds: string[] = []
  for (const originalId of proposal.superseded_ids) {
    const original = visibleMemory(tx, originalId)
    if (original.record.lifecycle !== 'superseded') {
      const { id: _id, ...rest } = original.record
      m.saveMemory(
        original.node,
        { ...rest, lifecycle: 'superseded', recorded_at: m.now, version: original.record.version + 1 },
        { policy_decisions: policy, reason: input.reason },
      )
    }
    const linked = memoryRelationshipsOf(tx, original.node).find((rel) => {
      const r = readRelationship(tx, rel)
      return r?.kind === 'superseded_by' && r.source_id === originalId && r.target_id === canonical.record.id
    })
    if (linked !== undefined) {
      relationshipIds.push(`relationship--${linked}`)
      continue
    }
    const rel = m.saveRelationship(
      null,
      { start: original.node, end: canonical.node },
      {
        identity_key: null,
        source_id: originalId,
        target_id: canonical.record.id,
        kind: 'superseded_by',
        properties: {
          proposal_id: proposal.proposal_id,
          approval_policy: mode.approval_policy,
          reason: input.reason,
        },
        provenance: [{ source_id: proposal.proposal_id, locator: null, observed_at: null }],
        confidence: null,
        valid_from: null,
        valid_until: null,
        recorded_at: m.now,
        expires_at: null,
        lifecycle: 'active',
        version: 1,
      },
      { evidence_source_ids: [proposal.proposal_id], policy_decisions: policy, reason: input.reason },
    )
    relationshipIds.push(rel.id)
  }
  return [
    'consolidate',
    {
      ...proposal,
      applied: true,
      disagreements_retained: true,
      receipt: m.receipt(proposal.proposal_id, canonical.record.version),
      superseded_by_relationship_ids: relationshipIds,
    },
  ]
}
