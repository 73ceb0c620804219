import type { GraphReader } from '../graph/types.js'
import { envelope } from './envelope.js'
import { notFound } from './errors.js'
import { memoryRelationshipsOf, parseId, readMemory, readRelationship } from './layout.js'
import type { VersionEntry, VersionLedger } from './ledgers.js'
import { type RecallTrace, tracePaths, traceSignals } from './recall-operation.js'
import type { TraceInput } from './request.js'
import type { MemoryContext, MemoryRecord, MemoryResponse, RelationshipRecord } from './types.js'

const TRACE_POLICY = [
  'trusted_workspace_filter_applied',
  'trace_permission_allowed',
  'non_sensitive_audit_projection',
]

/** The trace operation: a record's versions and evidence paths, a mutation by correlation id, or a recall. */
export class TraceOperation {
  constructor(
    private readonly host: { readGraph<T>(workspaceId: string, fn: (reader: GraphReader) => T): Promise<T> },
    private readonly versions: VersionLedger,
    private readonly recalls: { traceOf(workspace: string, recallId: string): RecallTrace | undefined },
  ) {}

  run(input: TraceInput, context: MemoryContext): Promise<MemoryResponse> {
    const workspace = context.workspace_id
    const { target } = input
    return this.host.readGraph(workspace, (reader) => {
      const base = { target, policy_decisions: [...TRACE_POLICY] }
      if (target.kind === 'recall') {
        const recall = this.recalls.traceOf(workspace, target.id)
        if (recall === undefined) throw notFound('recall', target.id)
        return envelope('trace', {
          ...base,
          versions: [],
          paths: tracePaths(recall),
          actor_id: recall.context.actor_id,
          agent_id: recall.context.agent_id,
          session_id: recall.context.session_id,
          details: {
            objective: recall.objective,
            filters: recall.filters,
            items: traceSignals(recall),
            correlation_id: recall.context.correlation_id,
          },
        })
      }
      const entries =
        target.kind === 'mutation'
          ? this.versions.byCorrelationId(workspace, target.id)
          : this.recordVersions(reader, workspace, target.kind, target.id)
      if (entries.length === 0) throw notFound(target.kind, target.id)
      const records = [...new Set(entries.map((e) => e.record_id))]
      const last = entries[entries.length - 1] as VersionEntry
      const decisions = new Set(TRACE_POLICY)
      for (const e of entries) for (const d of e.policy_decisions) decisions.add(d)
      return envelope('trace', {
        ...base,
        versions: entries.map((e) => ({
          record_id: e.record_id,
          version: e.version,
          lifecycle: e.lifecycle,
          recorded_at: e.recorded_at,
          operation: e.operation,
          actor_id: e.actor_id,
          agent_id: e.agent_id,
          session_id: e.session_id,
          correlation_id: e.correlation_id,
          evidence_source_ids: e.evidence_source_ids,
          policy_decisions: e.policy_decisions,
          reason: e.reason,
        })),
        paths: records.flatMap((id) => this.evidencePaths(reader, id)),
        actor_id: last.actor_id,
        agent_id: last.agent_id,
        session_id: last.session_id,
        policy_decisions: [...decisions],
        details: {
          correlation_ids: [...new Set(entries.map((e) => e.correlation_id))],
          current: records.map((id) => this.current(reader, id)).filter((r) => r !== null),
        },
      })
    })
  }

  /** The version log of a record of this workspace; a missing, hidden or wrong-kind id has none. */
  private recordVersions(
    reader: GraphReader,
    workspace: string,
    kind: string,
    id: string,
  ): readonly VersionEntry[] {
    const current = this.current(reader, id)
    if (current === null || !id.startsWith(kind === 'memory' ? 'node--' : 'relationship--')) return []
    const logged = this.versions.of(workspace, id)
    if (logged.length > 0) return logged
    // Written straight into the graph (Cypher, bulk load): its current state is the only version known.
    return [
      {
        workspace,
        record_id: id,
        version: current.version,
        lifecycle: current.lifecycle,
        recorded_at: current.recorded_at,
        operation: 'graph_write',
        actor_id: 'unknown',
        agent_id: null,
        session_id: 'unknown',
        correlation_id: 'unknown',
        identity_key: current.identity_key,
        evidence_source_ids: current.provenance.map((p) => p.source_id),
        policy_decisions: ['written_outside_the_memory_contract'],
        reason: null,
      },
    ]
  }

  private current(reader: GraphReader, id: string): MemoryRecord | RelationshipRecord | null {
    const node = parseId(id, 'node')
    if (node !== null) return readMemory(reader, node)
    const rel = parseId(id, 'relationship')
    return rel === null ? null : readRelationship(reader, rel)
  }

  /** The record's own evidence, then one path per memory relationship it takes part in. */
  private evidencePaths(reader: GraphReader, id: string) {
    const record = this.current(reader, id)
    if (record === null) return []
    const evidence = (r: { provenance: { source_id: string }[] }) => [
      ...new Set(r.provenance.map((p) => p.source_id)),
    ]
    if ('source_id' in record)
      return [
        {
          memory_ids: [record.source_id, record.target_id],
          relationship_ids: [id],
          evidence_source_ids: evidence(record),
        },
      ]
    const paths = [
      { memory_ids: [id], relationship_ids: [] as string[], evidence_source_ids: evidence(record) },
    ]
    for (const rel of memoryRelationshipsOf(reader, parseId(id, 'node') as number)) {
      const r = readRelationship(reader, rel)
      if (r !== null)
        paths.push({
          memory_ids: [r.source_id, r.target_id],
          relationship_ids: [r.id],
          evidence_source_ids: evidence(r),
        })
    }
    return paths
  }
}
