import { createHash, randomBytes } from 'node:crypto'
import type { LedgerWriter } from '../engine/ledger.js'
import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { GraphReader } from '../graph/types.js'
import type { SeedSearch } from '../seed/search.js'
import { invalid, memoryError, notFound } from './errors.js'
import {
  createMemory,
  createRelationship,
  memoryByIdentity,
  memoryRelationshipsOf,
  mergeProvenance,
  parseId,
  readMemory,
  readRelationship,
  writeMemory,
  writeRelationship,
} from './layout.js'
import { PageKeyLedger, ReceiptLedger, type VersionEntry, VersionLedger } from './ledgers.js'
import { issuePageToken, objectiveBinding, readPageToken } from './page-token.js'
import { runRecall } from './recall-query.js'
import {
  type ConsolidateInput,
  canonicalJson,
  type ForgetInput,
  operationOf,
  type ParsedRequest,
  parseRequest,
  type RecallInput,
  type RelateInput,
  type RememberInput,
  type TraceInput,
  type UpdateInput,
} from './request.js'
import { prepareRecallJson } from './response-json.js'
import {
  CONTRACT_VERSION,
  type MemoryContext,
  type MemoryRecord,
  type MemoryResponse,
  type OperationName,
  PERMISSION_OF,
  type Receipt,
  type RelationshipRecord,
} from './types.js'

/** What the memory service needs from the engine it runs in. */
export interface MemoryHost {
  transact<T>(
    workspaceId: string,
    fn: (tx: Transaction, store: GraphStore, ledger: LedgerWriter) => T,
    options?: { sessionId?: string | undefined; label?: string | undefined },
  ): Promise<{ value: T }>
  readGraph<T>(workspaceId: string, fn: (store: GraphStore) => T): Promise<T>
  seed(): SeedSearch
  now(): number
  /** True when the id names a session that is not stopped: only then is a request audited and timeshot. */
  sessionOpen(sessionId: string): boolean
  /** Runs `work` as one audited request of a session (the same piece Cypher requests go through). */
  audited<T>(
    sessionId: string | undefined,
    workspaceId: string,
    event: string,
    input: Record<string, unknown>,
    work: () => Promise<T>,
    output: (value: T) => Record<string, unknown>,
  ): Promise<T>
}

export interface ExecuteOptions {
  signal?: AbortSignal | undefined
}

/** The embedded door: `engine.memory.execute(request, context)` returns exactly what the HTTP route sends. */
export interface MemoryApi {
  execute(request: unknown, context: MemoryContext, options?: ExecuteOptions): Promise<MemoryResponse>
}

const MUTATIONS: ReadonlySet<OperationName> = new Set(['remember', 'relate', 'update', 'forget'])
const TRACE_POLICY = [
  'trusted_workspace_filter_applied',
  'trace_permission_allowed',
  'non_sensitive_audit_projection',
]
const RECALLS_KEPT = 1024

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

const envelope = (operation: string, result: object): MemoryResponse => ({
  ok: true,
  contract_version: CONTRACT_VERSION,
  result: { operation, result: result as Record<string, unknown> },
})

/** Attribution and the version-log writer handed to a mutation. */
interface Mutation {
  context: MemoryContext
  now: string
  operation: string
  tx: Transaction
  recordVersion(
    entry: Partial<VersionEntry> & Pick<VersionEntry, 'record_id' | 'version' | 'lifecycle'>,
  ): void
  receipt(id: string, version: number): Receipt
  /** Writes a memory (a new node when `node` is null), logs the version, and returns it as the graph holds it. */
  saveMemory(node: number | null, record: Omit<MemoryRecord, 'id'>, log?: Partial<VersionEntry>): MemoryRecord
  /** The same for a relationship (created from `ends.start` to `ends.end` when `rel` is null). */
  saveRelationship(
    rel: number | null,
    ends: { start: number; end: number } | null,
    record: Omit<RelationshipRecord, 'id'>,
    log?: Partial<VersionEntry>,
  ): RelationshipRecord
}

interface RecallTrace {
  context: MemoryContext
  paths: { memory_ids: string[]; relationship_ids: string[]; evidence_source_ids: string[] }[]
  objective: string
}

export class MemoryService implements MemoryApi {
  readonly receipts = new ReceiptLedger()
  readonly versions = new VersionLedger()
  readonly pageKey = new PageKeyLedger()
  /** Recent recalls for `trace` of kind recall (reads are not logged durably). */
  private readonly recalls = new Map<string, RecallTrace>()
  private pageKeyReady: Promise<string> | null = null

  constructor(private readonly host: MemoryHost) {}

  get ledgers() {
    return [this.receipts, this.versions, this.pageKey]
  }

  async execute(
    request: unknown,
    context: MemoryContext,
    options: ExecuteOptions = {},
  ): Promise<MemoryResponse> {
    const body = request as { input?: unknown; operation?: unknown; contract_version?: unknown } | null
    const session = this.host.sessionOpen(context.session_id) ? context.session_id : undefined
    return this.host.audited(
      session,
      context.workspace_id,
      'memory',
      {
        // Never the idempotency key: it is a secret of the caller's.
        operation: typeof body?.operation === 'string' ? body.operation : null,
        contract_version: typeof body?.contract_version === 'string' ? body.contract_version : null,
        input: body?.input ?? null,
        actor_id: context.actor_id,
        agent_id: context.agent_id,
        correlation_id: context.correlation_id,
      },
      () => this.run(request, context, session, options),
      (response) => {
        const result = response.result.result as { receipt?: Receipt | null; items?: unknown[] }
        return {
          status: 'ok',
          operation: response.result.operation,
          receipt: result.receipt ?? null,
          ...(result.items === undefined ? {} : { record_count: result.items.length }),
        }
      },
    )
  }

  private async run(
    request: unknown,
    context: MemoryContext,
    session: string | undefined,
    options: ExecuteOptions,
  ): Promise<MemoryResponse> {
    const operation = operationOf(request)
    const granted = new Set(context.permissions)
    if (!granted.has(PERMISSION_OF[operation]))
      throw memoryError('PERMISSION_DENIED', `${operation} needs the ${PERMISSION_OF[operation]} permission`)
    const parsed = parseRequest(request)
    const isMutation =
      MUTATIONS.has(operation) ||
      (operation === 'consolidate' && (parsed.input as ConsolidateInput).mode.mode === 'apply_approved')
    if (isMutation && parsed.idempotencyKey === null)
      throw memoryError('IDEMPOTENCY_KEY_REQUIRED', `${operation} is a mutation and needs an idempotency_key`)
    if (options.signal?.aborted) throw memoryError('CANCELLED', 'the request was cancelled')
    switch (parsed.operation) {
      case 'remember':
        return this.mutate(parsed, context, session, (m) => this.remember(m, parsed.input as RememberInput))
      case 'relate':
        return this.mutate(parsed, context, session, (m) => this.relate(m, parsed.input as RelateInput))
      case 'update':
        return this.mutate(parsed, context, session, (m) => this.update(m, parsed.input as UpdateInput))
      case 'forget':
        return this.mutate(parsed, context, session, (m) => this.forget(m, parsed.input as ForgetInput))
      case 'consolidate': {
        const input = parsed.input as ConsolidateInput
        if (input.mode.mode === 'propose')
          return this.host.readGraph(context.workspace_id, (store) =>
            envelope('consolidate', this.proposal(store, context.workspace_id, input)),
          )
        return this.mutate(parsed, context, session, (m) => this.applyConsolidation(m, input))
      }
      case 'recall':
        return this.recall(parsed.input as RecallInput, context, options)
      case 'trace':
        return this.trace(parsed.input as TraceInput, context)
    }
  }

  // ---- mutations: one transaction writes the records, their version log and the receipt ------------

  private async mutate(
    parsed: ParsedRequest,
    context: MemoryContext,
    session: string | undefined,
    apply: (m: Mutation) => [string, object],
  ): Promise<MemoryResponse> {
    const workspace = context.workspace_id
    const keyHash = sha256(parsed.idempotencyKey as string)
    const requestHash = sha256(
      canonicalJson({
        contract_version: CONTRACT_VERSION,
        operation: parsed.operation,
        input: parsed.rawInput,
      }),
    )
    const { value } = await this.host.transact(
      workspace,
      (tx, _store, ledger) => {
        // Checked inside the write transaction: concurrent retries of one key serialise here.
        const prior = this.receipts.get(workspace, keyHash)
        if (prior !== undefined) {
          if (prior.request_hash !== requestHash)
            throw memoryError(
              'IDEMPOTENCY_CONFLICT',
              'this idempotency key was used for a different request in this workspace',
            )
          ledger.write(this.receipts.name, { replay: true })
          return replayed(prior.response)
        }
        const now = new Date(this.host.now()).toISOString()
        // A saved memory or relationship gets its version-log entry; both kinds go through here.
        const logVersion = <R extends MemoryRecord | RelationshipRecord>(
          saved: R,
          log: Parameters<Mutation['recordVersion']>[0] extends infer E ? Partial<E> : never,
        ): R => {
          m.recordVersion({ record_id: saved.id, version: saved.version, lifecycle: saved.lifecycle, ...log })
          return saved
        }
        const m: Mutation = {
          context,
          now,
          operation: parsed.operation,
          tx,
          recordVersion: (entry) =>
            ledger.write(this.versions.name, {
              workspace,
              recorded_at: now,
              operation: parsed.operation,
              actor_id: context.actor_id,
              agent_id: context.agent_id,
              session_id: context.session_id,
              correlation_id: context.correlation_id,
              identity_key: null,
              evidence_source_ids: [],
              policy_decisions: [],
              reason: null,
              ...entry,
            } satisfies VersionEntry),
          receipt: (id, version) => ({
            committed_id: id,
            committed_version: version,
            audit_correlation_id: context.correlation_id,
            replayed: false,
          }),
          saveMemory: (node, record, log = {}) => {
            const id = node ?? createMemory(tx, record)
            if (node !== null) writeMemory(tx, node, record)
            return logVersion(readMemory(tx, id) as MemoryRecord, log)
          },
          saveRelationship: (rel, ends, record, log = {}) => {
            const id = rel ?? createRelationship(tx, ends?.start as number, ends?.end as number, record)
            if (rel !== null) writeRelationship(tx, rel, record)
            const saved = readRelationship(tx, id) as RelationshipRecord
            return logVersion(saved, { identity_key: saved.identity_key, ...log })
          },
        }
        const [operation, result] = apply(m)
        const response = envelope(operation, result)
        ledger.write(this.receipts.name, {
          workspace,
          key_hash: keyHash,
          request_hash: requestHash,
          response,
        })
        return response
      },
      { sessionId: session, label: `memory ${parsed.operation}` },
    )
    return value
  }

  private remember(m: Mutation, input: RememberInput): [string, object] {
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
  private visibleMemory(reader: GraphReader, id: string): { node: number; record: MemoryRecord } {
    const node = parseId(id, 'node')
    const record = node === null ? null : readMemory(reader, node)
    if (node === null || record === null || record.lifecycle === 'tombstoned') throw notFound('memory', id)
    return { node, record }
  }

  private relate(m: Mutation, input: RelateInput): [string, object] {
    const { tx } = m
    const source = this.visibleMemory(tx, input.source_id)
    const target = this.visibleMemory(tx, input.target_id)
    let existing: number | null = null
    if (input.identity_key !== null) {
      const known = this.versions.relationshipByIdentity(m.context.workspace_id, input.identity_key)
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

  private update(m: Mutation, input: UpdateInput): [string, object] {
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

  private forget(m: Mutation, input: ForgetInput): [string, object] {
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

  // ---- consolidation ---------------------------------------------------------------------------

  private proposal(reader: GraphReader, workspace: string, input: ConsolidateInput) {
    const canonicalId = input.canonical_id as string
    const records = input.memory_ids.map((id) => this.visibleMemory(reader, id).record)
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

  private applyConsolidation(m: Mutation, input: ConsolidateInput): [string, object] {
    const { tx } = m
    const mode = input.mode as Extract<ConsolidateInput['mode'], { mode: 'apply_approved' }>
    const proposal = this.proposal(tx, m.context.workspace_id, input)
    if (mode.proposal_id !== proposal.proposal_id)
      throw memoryError(
        'POLICY_APPROVAL_REQUIRED',
        'apply_approved must repeat the exact candidate set and canonical identity of an approved proposal',
      )
    if (!input.preserve_disagreements)
      throw memoryError('POLICY_APPROVAL_REQUIRED', 'consolidation that drops disagreements is destructive')
    const canonical = this.visibleMemory(tx, proposal.canonical_id)
    const policy = [
      `approval_policy:${mode.approval_policy}`,
      'disagreements_preserved',
      'originals_retained',
    ]
    const relationshipIds: string[] = []
    for (const originalId of proposal.superseded_ids) {
      const original = this.visibleMemory(tx, originalId)
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
        return (
          r?.kind === 'superseded_by' && r.source_id === originalId && r.target_id === canonical.record.id
        )
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

  // ---- recall ----------------------------------------------------------------------------------

  private pageSecret(workspace: string): Promise<string> {
    if (this.pageKey.key !== null) return Promise.resolve(this.pageKey.key)
    this.pageKeyReady ??= this.host
      .transact(workspace, (_tx, _store, ledger) => {
        if (this.pageKey.key === null)
          ledger.write(this.pageKey.name, { key: randomBytes(32).toString('hex') })
      })
      .then(() => this.pageKey.key as string)
      .finally(() => {
        this.pageKeyReady = null
      })
    return this.pageKeyReady
  }

  private async recall(
    input: RecallInput,
    context: MemoryContext,
    options: ExecuteOptions,
  ): Promise<MemoryResponse> {
    const started = performance.now()
    const workspace = context.workspace_id
    const { limits } = input
    const nowMs = this.host.now()
    const binding = objectiveBinding(input.objective, input.seed_ids)
    const offset =
      input.page_token === null
        ? 0
        : readPageToken(await this.pageSecret(workspace), input.page_token, workspace, binding)
    const { walked, dense, hits } = await runRecall(this.host.seed(), this.host.readGraph.bind(this.host), {
      workspace,
      objective: input.objective,
      seedIds: input.seed_ids,
      limits,
      offset,
      nowMs,
      deadline: started + limits.timeout_ms,
      signal: options.signal,
    })
    if (hits === 0 && !dense) walked.outcomes.push('semantic_provider_unavailable')
    const recallId = `recall--${sha256(
      JSON.stringify([
        workspace,
        input.objective,
        input.seed_ids,
        limits,
        offset,
        nowMs,
        randomBytes(8).toString('hex'),
      ]),
    ).slice(0, 24)}`
    this.remember_recall(`${workspace}\u0000${recallId}`, {
      context,
      objective: input.objective,
      paths: walked.items.map((i) => ({
        ...i.selection_path,
        evidence_source_ids: i.record.provenance.map((p) => p.source_id),
      })),
    })
    const truncated = walked.outcomes.length > 0 || walked.next_offset !== null
    const response = envelope('recall', {
      recall_id: recallId,
      items: walked.items,
      relationships: walked.relationships,
      completeness: { complete: !truncated, truncated, outcomes: walked.outcomes },
      usage: {
        items: walked.items.length,
        depth: walked.depth,
        payload_bytes: walked.payload_bytes,
        cost: walked.cost,
        elapsed_ms: Math.round((performance.now() - started) * 1000) / 1000,
      },
      next_page_token:
        walked.next_offset === null
          ? null
          : issuePageToken(await this.pageSecret(workspace), workspace, binding, walked.next_offset),
    })
    return prepareRecallJson(response, {
      items: walked.items,
      itemsJson: walked.itemsJson,
      relationships: walked.relationships,
      relationshipsJson: walked.relationshipsJson,
    })
  }

  private remember_recall(key: string, trace: RecallTrace): void {
    this.recalls.set(key, trace)
    if (this.recalls.size > RECALLS_KEPT) this.recalls.delete(this.recalls.keys().next().value as string)
  }

  // ---- trace -----------------------------------------------------------------------------------

  private trace(input: TraceInput, context: MemoryContext): Promise<MemoryResponse> {
    const workspace = context.workspace_id
    const { target } = input
    return this.host.readGraph(workspace, (reader) => {
      const base = { target, policy_decisions: [...TRACE_POLICY] }
      if (target.kind === 'recall') {
        const recall = this.recalls.get(`${workspace}\u0000${target.id}`)
        if (recall === undefined) throw notFound('recall', target.id)
        return envelope('trace', {
          ...base,
          versions: [],
          paths: recall.paths,
          actor_id: recall.context.actor_id,
          agent_id: recall.context.agent_id,
          session_id: recall.context.session_id,
          details: { objective: recall.objective, correlation_id: recall.context.correlation_id },
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

/** A stored response as a replay: the same body with `receipt.replayed` true. */
function replayed(response: MemoryResponse): MemoryResponse {
  const copy = structuredClone(response)
  const receipt = (copy.result.result as { receipt?: Receipt | null }).receipt
  if (receipt) receipt.replayed = true
  return copy
}
