/**
 * The embedded door of reference-platform writes (`engine.ref`): idempotent transactional writes, the
 * projection outbox and its projector, write authority, status, reconstruction and file jobs.
 *
 * A write is two durable commits: the write-ahead intent (an outbox entry `prepared`, ledger only), then
 * the payload (graph records, receipt, audit rows and the entry activated to `pending`) in one WAL record.
 * Payloads commit in intent order, so the outbox order is the order the canonical store applied them.
 * The caller is answered only after the payload is durable and the derived indexes are updated.
 *
 * A deployment with no reference endpoint is a service-only store: it has nowhere to project, so the
 * payload commit closes the intent instead of activating it; receipts and audits are kept as everywhere,
 * and the outbox stays empty, so such a store (the reference instance of our tests) accepts any number of
 * writes.
 */
import { readFileSync } from 'node:fs'
import type { Engine } from '../engine/engine.js'
import { EngineError, isEngineError } from '../errors.js'
import type { GraphStore } from '../graph/store.js'
import {
  type AuditNote,
  FAILURE_OF,
  type ItemResult,
  WriteEvaluator,
  type WriteFailure,
  type WriteResponse,
} from './apply.js'
import { RefErrors } from './codes.js'
import { fileJobId, fingerprint, hashKey, hashOrderingKey, transactionId } from './identity.js'
import { Projector } from './projector.js'
import {
  CanonicalGraph,
  endpointIds,
  indexRelationships,
  isRelationshipRecord,
  REF_WORKSPACE_ID,
  rawRecords,
  recordIdOf,
} from './records.js'
import type { ReferenceClient } from './reference-client.js'
import {
  type BulkItem,
  descriptorProblem,
  type FileDescriptor,
  type RefWriteRequest,
  ROLLBACK_TRIGGERS,
  requestProblem,
  WRITE_AUTHORITIES,
  WRITE_OPERATIONS,
  type WriteAuthority,
} from './request.js'
import {
  type AuditGroup,
  type OutboxEntry,
  REF_LEDGER,
  type RefLedgerEntry,
  RefState,
  type StoredResponse,
} from './state.js'

export interface RefOptions {
  /** SERVICE_OPENCTI_SYNC_MAX_OPERATIONS: operations one write may carry (bulk items; merge target + sources). */
  maxOperations?: number
  /** SERVICE_REF_SYNC_MAX_REPLAY_IDENTITIES: unresolved outbox entries before writes get backpressure. */
  outboxCapacity?: number
  /** SERVICE_REF_SHADOW_MAX_CONCURRENCY: concurrent writes, and projection requests in flight. */
  maxConcurrency?: number
  /** SERVICE_REF_SHADOW_TIMEOUT_MS: deadline of one projection request. */
  timeoutMs?: number
  /** The reference platform; null or absent makes a service-only store. */
  reference?: ReferenceClient | null
  /** Pause before a failed projection is retried in the background. */
  retryIntervalMs?: number
  /** Where a 0.3.0 deployment left its dual-write state (`<storage dir>/runtime/opencti-write-state.json`). */
  legacyStateFile?: string | null
  now?: () => number
}

export interface WriteCall {
  /** The HTTP request's correlation id, used when the body's own cannot be read. */
  correlationId?: string | undefined
}

export type AuthorityTarget = WriteAuthority

export interface AuthorityRequest {
  target: AuthorityTarget
  reference_healthy: boolean
  replay_complete: boolean
  parity_verified: boolean
}

export interface RefFigures {
  outbox_depth: number
  lag: number
  retries_total: number
  quarantined: number
  reconstruction_total: number
  authority: WriteAuthority
  mode: 'elastic_free' | 'reversible_reference'
}

export type FileCommand =
  | { operation: 'enqueue'; descriptor: FileDescriptor }
  | { operation: 'delete'; file_ids: string[] }

/** Thrown inside an atomic payload transaction to discard it; carries the answer for the caller. */
class AtomicAbort {
  constructor(readonly response: StoredResponse) {}
}

const STATUS_LIST_MAX = 1024

export class RefWrites {
  readonly state = new RefState()
  private readonly options: Required<Omit<RefOptions, 'reference' | 'legacyStateFile'>>
  private readonly reference: ReferenceClient | null
  private readonly projector: Projector | null
  private relIndex: Map<string, number> | null = null
  private readonly inflight = new Set<string>()
  private permits = 0
  /** Payload turns: a write's payload commits only after the one before it in intent order. */
  private readonly turns = new Map<number, { done: Promise<void>; release: () => void }>()
  private blocked: string | null = null
  private readonly tally = {
    applied_operations: 0,
    failed_operations: 0,
    idempotent_replays: 0,
    reconstruction_runs: 0,
  }

  constructor(
    private readonly engine: Engine,
    options: RefOptions,
    /** The published graph of a workspace (the relationship index is rebuilt from it after recovery). */
    private readonly storeOf: (workspaceId: string) => GraphStore,
  ) {
    this.options = {
      maxOperations: options.maxOperations ?? 512,
      outboxCapacity: options.outboxCapacity ?? 4096,
      maxConcurrency: options.maxConcurrency ?? 4,
      timeoutMs: options.timeoutMs ?? 2000,
      retryIntervalMs: options.retryIntervalMs ?? 1000,
      now: options.now ?? Date.now,
    }
    this.legacyStateFile = options.legacyStateFile ?? null
    this.reference = options.reference ?? null
    this.projector =
      this.reference === null
        ? null
        : new Projector(
            {
              state: this.state,
              commit: (entries) => this.commitLedger(entries),
              isOpen: () => this.engine.state() === 'open',
            },
            this.reference,
            {
              maxConcurrency: this.options.maxConcurrency,
              timeoutMs: this.options.timeoutMs,
              retryIntervalMs: this.options.retryIntervalMs,
            },
          )
  }

  private readonly legacyStateFile: string | null

  get mode(): RefFigures['mode'] {
    return this.reference === null ? 'elastic_free' : 'reversible_reference'
  }

  /** False while startup recovery found a committed write whose receipt cannot be read. */
  ready(): boolean {
    return this.blocked === null
  }

  private async commitLedger(entries: RefLedgerEntry[]): Promise<void> {
    await this.engine.transact(REF_WORKSPACE_ID, (_tx, _store, ledger) => {
      for (const entry of entries) ledger.write(REF_LEDGER, entry)
    })
  }

  // ---- startup -------------------------------------------------------------------------------

  /**
   * Startup recovery (spec, projection outbox): a prepared entry with no committed payload is an abandoned
   * intent and is removed; a committed one whose receipt cannot be read blocks readiness. A pre-existing
   * unresolved legacy dual-write record suspends writes with trigger migration_failure.
   */
  async start(): Promise<void> {
    if (this.engine.storageMode !== 'persistent') return
    const abandoned: number[] = []
    for (const entry of this.state.entries.values()) {
      const receipt = this.state.receipts.get(entry.key)
      const committed = receipt !== undefined && receipt.sequence === entry.sequence
      if (entry.status === 'prepared' && !committed) abandoned.push(entry.sequence)
      else if (entry.status === 'prepared' || (entry.status === 'pending' && !readable(entry.response)))
        this.blocked = `outbox entry ${entry.sequence} is committed but its receipt cannot be read`
    }
    const entries: RefLedgerEntry[] = []
    if (abandoned.length > 0) entries.push({ k: 'drop', sequences: abandoned })
    const legacy = this.legacyDigest()
    if (legacy !== null && !this.state.legacy.has(legacy)) {
      entries.push({ k: 'legacy', digest: legacy })
      entries.push({
        k: 'authority',
        authority: 'writes_suspended',
        trigger: 'migration_failure',
        resolve_quarantine: false,
      })
    }
    if (entries.length > 0) await this.commitLedger(entries)
    if (this.blocked === null) this.projector?.kick()
  }

  /** Digest of an unresolved legacy dual-write state file, or null when there is none (or all resolved). */
  private legacyDigest(): string | null {
    if (this.legacyStateFile === null) return null
    let text: string
    try {
      text = readFileSync(this.legacyStateFile, 'utf8')
    } catch {
      return null
    }
    let unresolved = true
    try {
      const parsed = JSON.parse(text) as {
        projections?: { status?: string }[]
        entries?: { status?: string }[]
      }
      const items = [...(parsed.projections ?? []), ...(parsed.entries ?? [])]
      unresolved = items.some((item) => item.status === 'prepared' || item.status === 'pending')
    } catch {
      unresolved = true // an unreadable legacy record cannot be shown resolved
    }
    return unresolved ? hashOrderingKey(text) : null
  }

  close(): void {
    this.projector?.close()
  }

  // ---- writes --------------------------------------------------------------------------------

  async write(body: unknown, call: WriteCall = {}): Promise<StoredResponse> {
    const loose = (body ?? {}) as {
      contract_version?: { major?: number; minor?: number }
      context?: { idempotency_key?: unknown; correlation_id?: unknown }
      operation?: { operation?: unknown }
    }
    const name = loose.operation?.operation
    if (typeof name === 'string' && !(WRITE_OPERATIONS as readonly string[]).includes(name))
      throw RefErrors.invalidOperation(name)
    const key = loose.context?.idempotency_key
    if (typeof key !== 'string' || key.trim() === '') throw RefErrors.keyRequired()
    const correlationId =
      typeof loose.context?.correlation_id === 'string' && loose.context.correlation_id !== ''
        ? loose.context.correlation_id
        : (call.correlationId ?? 'unknown')
    const envelope = (outcome: StoredResponse['outcome']): StoredResponse => ({
      contract_version: { major: 1, minor: loose.contract_version?.minor ?? 0 },
      correlation_id: correlationId,
      outcome,
    })
    const fail = (failure: WriteFailure): StoredResponse => {
      this.tally.failed_operations += 1
      return envelope({ status: 'failure', error: failure })
    }

    const problem = requestProblem(body)
    if (problem !== null) return fail({ code: 'INVALID_REQUEST', message: problem, retryable: false })
    const request = body as RefWriteRequest
    const shapeProblem = this.checkLimits(request)
    if (shapeProblem !== null)
      return fail({ code: 'INVALID_REQUEST', message: shapeProblem, retryable: false })

    const keyHash = hashKey(key)
    const print = fingerprint(request)
    // In progress first: its receipt may be published before it is durable, and only the original caller
    // may be answered before that.
    if (this.inflight.has(keyHash))
      throw RefErrors.suspended('a write with this idempotency key is still in progress; retry with it')
    const receipt = this.state.receipts.get(keyHash)
    if (receipt !== undefined) {
      if (receipt.fingerprint !== print)
        return fail({
          code: 'CONFLICT',
          message: 'this idempotency key was used with a different request',
          retryable: false,
        })
      this.tally.idempotent_replays += 1
      return receipt.response
    }
    if (this.blocked !== null) throw RefErrors.notReady(this.blocked)
    if (this.engine.storageMode !== 'persistent')
      return fail({
        code: 'BACKEND_UNAVAILABLE',
        message: 'reference writes are acknowledged only with persistent storage',
        retryable: true,
      })
    if (this.state.authority !== 'service_primary')
      throw RefErrors.suspended(
        `writes are suspended: authority is ${this.state.authority}` +
          (this.state.trigger === null ? '' : ` (trigger ${this.state.trigger})`),
      )
    if (this.projector !== null && this.state.unresolved() >= this.options.outboxCapacity)
      throw RefErrors.suspended(
        `the projection outbox is full (${this.options.outboxCapacity} unresolved entries); retry with the same key`,
      )
    if (this.permits >= this.options.maxConcurrency) throw RefErrors.backpressure(this.options.maxConcurrency)
    const deadline = request.context.deadline_unix_ms ?? null
    if (deadline !== null && this.options.now() > deadline) throw RefErrors.timeout()

    this.permits += 1
    this.inflight.add(keyHash)
    try {
      return await this.commitWrite(request, keyHash, print, envelope, deadline)
    } finally {
      this.inflight.delete(keyHash)
      this.permits -= 1
    }
  }

  private checkLimits(request: RefWriteRequest): string | null {
    const op = request.operation
    const max = this.options.maxOperations
    const count =
      op.operation === 'bulk'
        ? op.request.operations.length
        : op.operation === 'merge'
          ? op.request.source_ids.length + 1
          : 1
    if (count > max) return `the write carries ${count} operations; at most ${max} are allowed`
    if (op.operation === 'bulk') {
      const ids = new Set<string>()
      for (const [i, item] of op.request.operations.entries()) {
        const id = item.operation_id ?? `bulk-item-${i}`
        if (ids.has(id)) return `operation_id ${id} is not unique`
        ids.add(id)
      }
    }
    return null
  }

  private async commitWrite(
    request: RefWriteRequest,
    keyHash: string,
    print: string,
    envelope: (outcome: StoredResponse['outcome']) => StoredResponse,
    deadline: number | null,
  ): Promise<StoredResponse> {
    const context = request.context
    let sequence = 0
    try {
      await this.engine.transact(REF_WORKSPACE_ID, (_tx, _store, ledger) => {
        sequence = this.state.nextSequence
        this.openTurn(sequence)
        const entry: OutboxEntry = {
          sequence,
          key: keyHash,
          ordering_key_hash: hashOrderingKey(orderingKey(request, sequence)),
          correlation_id: context.correlation_id,
          touched: touchedIds(request),
          status: 'prepared',
          attempts: 0,
          diagnostic: null,
          request: null,
          response: null,
        }
        ledger.write(REF_LEDGER, { k: 'intent', entry } satisfies RefLedgerEntry)
      })
    } catch (error) {
      if (sequence > 0) this.closeTurn(sequence)
      throw RefErrors.stateFailed(`the write-ahead intent could not be persisted: ${messageOf(error)}`)
    }
    try {
      await this.turns.get(sequence - 1)?.done
      if (deadline !== null && this.options.now() > deadline) {
        await this.drop(sequence)
        throw RefErrors.timeout()
      }
      const stored = { ...request, context: { ...context, idempotency_key: keyHash } }
      let answer: { response: StoredResponse; applied: number; failed: number }
      try {
        const result = await this.engine.transact(REF_WORKSPACE_ID, (tx, _store, ledger) => {
          const graph = new CanonicalGraph(tx, this.relationshipIndex())
          const evaluated = this.evaluate(request, graph, envelope)
          if (evaluated.applied === 0) {
            if (evaluated.abort) throw new AtomicAbort(evaluated.response)
            ledger.write(REF_LEDGER, { k: 'drop', sequences: [sequence] } satisfies RefLedgerEntry)
          } else {
            ledger.write(REF_LEDGER, {
              k: 'commit',
              sequence,
              receipt: {
                key: keyHash,
                fingerprint: print,
                sequence,
                transaction_id: transactionId(keyHash),
                response: evaluated.response,
              },
              project: this.projector !== null,
              request: this.projector === null ? null : stored,
              audit: auditGroup(evaluated.audits, keyHash, context),
            } satisfies RefLedgerEntry)
          }
          // Folded in last: a throw above leaves the index as it was.
          const index = this.relationshipIndex()
          for (const [id, gid] of graph.relChanges) {
            if (gid === null) index.delete(id)
            else index.set(id, gid)
          }
          return evaluated
        })
        answer = result.value
      } catch (error) {
        if (error instanceof AtomicAbort) {
          await this.drop(sequence)
          answer = { response: error.response, applied: 0, failed: 1 }
        } else if (isEngineError(error) && error.category !== 'internal') {
          throw RefErrors.writeFailed(`the write could not be committed: ${error.message}`)
        } else throw error
      }
      this.tally.applied_operations += answer.applied
      this.tally.failed_operations += answer.failed
      if (answer.applied > 0) this.projector?.kick()
      return answer.response
    } finally {
      this.closeTurn(sequence)
    }
  }

  private async drop(sequence: number): Promise<void> {
    try {
      await this.commitLedger([{ k: 'drop', sequences: [sequence] }])
    } catch (error) {
      throw RefErrors.stateFailed(`the abandoned intent could not be removed: ${messageOf(error)}`)
    }
  }

  private openTurn(sequence: number): void {
    let release = () => {}
    const done = new Promise<void>((resolve) => {
      release = resolve
    })
    this.turns.set(sequence, { done, release })
  }

  private closeTurn(sequence: number): void {
    const turn = this.turns.get(sequence)
    if (turn === undefined) return
    this.turns.delete(sequence)
    turn.release()
  }

  private relationshipIndex(): Map<string, number> {
    if (this.relIndex === null) {
      // First use after open: rebuilt from the recovered graph (the transaction runs on the published one).
      this.relIndex = indexRelationships(this.storeOf(REF_WORKSPACE_ID))
    }
    return this.relIndex
  }

  private evaluate(
    request: RefWriteRequest,
    graph: CanonicalGraph,
    envelope: (outcome: StoredResponse['outcome']) => StoredResponse,
  ): { response: StoredResponse; applied: number; failed: number; abort: boolean; audits: AuditNote[] } {
    const evaluator = new WriteEvaluator(graph)
    const op = request.operation
    const success = (response: WriteResponse) => envelope({ status: 'success', response })
    if (op.operation === 'merge') {
      const merged = evaluator.merge(op.request)
      if ('failure' in merged)
        return {
          response: envelope({ status: 'failure', error: merged.failure }),
          applied: 0,
          failed: 1,
          abort: true,
          audits: [],
        }
      return {
        response: success({ response: 'merge', data: merged.data }),
        applied: 1,
        failed: 0,
        abort: false,
        audits: evaluator.audits,
      }
    }
    const items: BulkItem[] =
      op.operation === 'bulk'
        ? op.request.operations
        : op.operation === 'create'
          ? [{ operation: 'create', record: op.request.record }]
          : op.operation === 'update'
            ? [{ operation: 'update', ...op.request }]
            : [{ operation: 'delete', ...op.request }]
    const atomic = op.operation !== 'bulk' || op.request.atomic
    const results: ItemResult[] = []
    let failedAt = -1
    for (const [i, item] of items.entries()) {
      if (failedAt >= 0) {
        results.push(abortedResult(item, item.operation_id ?? `bulk-item-${i}`))
        continue
      }
      const result = evaluator.item(item, item.operation_id ?? `bulk-item-${i}`)
      results.push(result)
      if (atomic && result.status !== 'applied') failedAt = i
    }
    if (atomic && failedAt >= 0) {
      // Nothing of the batch commits: applied items before the failure flip to aborted.
      for (const [i, result] of results.entries())
        if (i !== failedAt) Object.assign(result, { status: 'aborted', after_revision: null })
      const failed = results[failedAt] as ItemResult
      const response =
        op.operation === 'bulk'
          ? success({ response: 'bulk', data: { results } })
          : envelope({
              status: 'failure',
              error: {
                code: FAILURE_OF[failed.status as 'conflict' | 'rejected' | 'retryable'],
                message: failed.diagnostic ?? 'the write failed',
                retryable: failed.status === 'retryable',
              },
            })
      return { response, applied: 0, failed: 1, abort: true, audits: [] }
    }
    const applied = results.filter((r) => r.status === 'applied').length
    const response =
      op.operation === 'bulk'
        ? success({ response: 'bulk', data: { results } })
        : success({
            response: 'write',
            data: {
              id: results[0]?.id as string,
              revision: results[0]?.after_revision ?? results[0]?.before_revision ?? 0,
            },
          })
    return { response, applied, failed: results.length - applied, abort: false, audits: evaluator.audits }
  }

  // ---- status, projection, authority ------------------------------------------------------------

  figures(): RefFigures {
    const prepared = this.state.count('prepared')
    const pending = this.state.count('pending')
    return {
      outbox_depth: prepared + pending,
      lag: this.state.unresolved(),
      retries_total: this.projector?.retriesTotal ?? 0,
      quarantined: this.state.count('quarantined'),
      reconstruction_total: this.tally.reconstruction_runs,
      authority: this.state.authority,
      mode: this.mode,
    }
  }

  /** The status counters (FACTS §8 `result`), without the lists. */
  counters() {
    const f = this.figures()
    const pending = this.state.count('pending')
    return {
      pending_reconciliation: pending,
      fully_reconciled: pending === 0 && f.quarantined === 0,
      applied_operations: this.tally.applied_operations,
      failed_operations: this.tally.failed_operations,
      idempotent_replays: this.tally.idempotent_replays,
      quarantined_reconciliation: f.quarantined,
      projection_outbox_depth: f.outbox_depth,
      projection_lag: f.lag,
      projection_retries: f.retries_total,
      projection_quarantined: f.quarantined,
      write_authority: f.authority,
      write_authority_trigger: this.state.trigger,
      fully_synchronized: f.lag === 0,
      reconstruction_runs: f.reconstruction_total,
      ref_mode: f.mode,
      high_water_sequence: this.state.nextSequence - 1,
    }
  }

  status() {
    const entries = [...this.state.entries.values()].slice(-STATUS_LIST_MAX)
    const reconciliations = entries
      .filter((e) => e.status !== 'prepared')
      .map((e) => ({
        idempotency_key_hash: e.key,
        correlation_id: e.correlation_id,
        status:
          e.status === 'delivered'
            ? ('reconciled' as const)
            : e.status === 'quarantined'
              ? ('quarantined' as const)
              : ('pending' as const),
        attempts: e.attempts,
        diagnostic: e.diagnostic,
      }))
    return {
      ok: true as const,
      result: this.counters(),
      reconciliations,
      projections: entries.map((e) => ({
        sequence: e.sequence,
        ordering_key_hash: e.ordering_key_hash,
        status: e.status,
        attempts: e.attempts,
        diagnostic: e.diagnostic,
      })),
      audits: this.state.audits(STATUS_LIST_MAX),
    }
  }

  /** Retries the ordered outbox now: oldest pending first, stopping at the first failure or divergence. */
  async drain() {
    try {
      await this.projector?.drain()
    } catch (error) {
      throw RefErrors.stateFailed(`the projection state could not be saved: ${messageOf(error)}`)
    }
    return this.status()
  }

  async reconstruction(): Promise<{ high_water_sequence: number; records: Record<string, unknown>[] }> {
    if (this.engine.storageMode !== 'persistent') throw RefErrors.reconstructionNeedsPersistence()
    try {
      const result = await this.engine.readGraph(REF_WORKSPACE_ID, (store) => ({
        high_water_sequence: this.state.nextSequence - 1,
        records: rawRecords(store),
      }))
      this.tally.reconstruction_runs += 1
      return result
    } catch (error) {
      throw RefErrors.reconstructionFailed(`the canonical records could not be read: ${messageOf(error)}`)
    }
  }

  async suspend(trigger: string): Promise<{ authority: 'writes_suspended' }> {
    if (!(ROLLBACK_TRIGGERS as readonly string[]).includes(trigger))
      throw new EngineError(
        'INVALID_REQUEST',
        `trigger must be one of ${ROLLBACK_TRIGGERS.join(', ')}`,
        'invalid',
      )
    await this.saveAuthority({
      k: 'authority',
      authority: 'writes_suspended',
      trigger,
      resolve_quarantine: false,
    })
    return { authority: 'writes_suspended' }
  }

  /**
   * Gated authority transitions (FACTS §8): writes_suspended always; reference_primary from writes_suspended
   * with all three evidence flags and nothing prepared or pending; back to service_primary with replay and
   * parity evidence and nothing prepared or pending. Both non-suspend targets resolve quarantined entries.
   */
  async assignAuthority(request: AuthorityRequest): Promise<{ authority: WriteAuthority }> {
    const target = request.target
    if (!(WRITE_AUTHORITIES as readonly string[]).includes(target))
      throw new EngineError(
        'INVALID_REQUEST',
        `target must be one of ${WRITE_AUTHORITIES.join(', ')}`,
        'invalid',
      )
    if (target !== 'writes_suspended') {
      const refused: string[] = []
      if (target === 'reference_primary' && this.state.authority !== 'writes_suspended')
        refused.push(`writes are not suspended (authority is ${this.state.authority})`)
      if (target === 'reference_primary' && !request.reference_healthy)
        refused.push('reference_healthy is false')
      if (!request.replay_complete) refused.push('replay_complete is false')
      if (!request.parity_verified) refused.push('parity_verified is false')
      const unsettled = this.state.count('prepared') + this.state.count('pending')
      if (unsettled > 0) refused.push(`${unsettled} outbox entries are prepared or pending`)
      if (refused.length > 0) throw RefErrors.gateFailed(`authority ${target} refused: ${refused.join('; ')}`)
    }
    await this.saveAuthority({
      k: 'authority',
      authority: target,
      trigger: target === 'service_primary' ? null : this.state.trigger,
      resolve_quarantine: target !== 'writes_suspended',
    })
    return { authority: target }
  }

  private async saveAuthority(entry: RefLedgerEntry): Promise<void> {
    try {
      await this.commitLedger([entry])
    } catch (error) {
      throw RefErrors.authorityFailed(`the authority could not be saved: ${messageOf(error)}`)
    }
  }

  // ---- files -----------------------------------------------------------------------------------

  async files(
    command: unknown,
  ): Promise<{ result: 'enqueued' | 'duplicate'; job_id: string } | { result: 'deleted' }> {
    const c = (command ?? {}) as { operation?: unknown; descriptor?: unknown; file_ids?: unknown }
    if (c.operation !== 'enqueue' && c.operation !== 'delete')
      throw RefErrors.fileCommandInvalid("operation must be 'enqueue' or 'delete'")
    if (c.operation === 'enqueue') {
      const problem = descriptorProblem(c.descriptor)
      if (problem !== null) throw RefErrors.fileEnqueueFailed(problem)
    } else if (
      !Array.isArray(c.file_ids) ||
      c.file_ids.length === 0 ||
      c.file_ids.some((id) => typeof id !== 'string' || id.trim() === '')
    )
      throw RefErrors.fileDeleteInvalid('file_ids must be a non-empty list of non-blank ids')
    if (this.engine.storageMode !== 'persistent') throw RefErrors.fileStorageRequired()
    if (c.operation === 'enqueue') {
      const d = c.descriptor as FileDescriptor
      const jobId = fileJobId(d.file_id, d.content_hash, d.version)
      if (this.state.files.has(jobId)) return { result: 'duplicate', job_id: jobId }
      try {
        await this.commitLedger([
          {
            k: 'file_enqueue',
            job: {
              job_id: jobId,
              file_id: d.file_id,
              content_hash: d.content_hash,
              version: d.version,
              descriptor: d,
            },
          },
        ])
      } catch (error) {
        throw RefErrors.stateFailed(`the file job could not be saved: ${messageOf(error)}`)
      }
      return { result: 'enqueued', job_id: jobId }
    }
    try {
      await this.commitLedger([{ k: 'file_delete', file_ids: c.file_ids as string[] }])
    } catch (error) {
      throw RefErrors.fileDeleteFailed(`the file projections could not be deleted: ${messageOf(error)}`)
    }
    return { result: 'deleted' }
  }

  /** Durable file jobs, by job id (for tests and the status of an embedding application). */
  fileJobs(): { job_id: string; file_id: string; version: number }[] {
    return [...this.state.files.values()].map(({ job_id, file_id, version }) => ({
      job_id,
      file_id,
      version,
    }))
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const readable = (response: StoredResponse | null): boolean =>
  response !== null && typeof response === 'object' && typeof response.outcome?.status === 'string'

function abortedResult(item: BulkItem, operationId: string): ItemResult {
  return {
    operation_id: operationId,
    id: 'id' in item ? item.id : (recordIdOf(item.record) ?? null),
    status: 'aborted',
    before_revision: null,
    after_revision: null,
    diagnostic: null,
  }
}

/** FACTS §8 ordering keys: record id, merge target (the survivor), or the bulk transaction. */
function orderingKey(request: RefWriteRequest, sequence: number): string {
  const op = request.operation
  switch (op.operation) {
    case 'create':
      return recordIdOf(op.request.record) ?? ''
    case 'update':
    case 'delete':
      return op.request.id
    case 'merge':
      return op.request.target_id
    case 'bulk':
      return `transaction--${String(sequence).padStart(20, '0')}`
  }
}

/** Records a write may touch; deletes cascade and merges redirect anything, so both are barriers. */
function touchedIds(request: RefWriteRequest): string[] {
  const op = request.operation
  if (op.operation === 'merge' || op.operation === 'delete') return ['*']
  const items: BulkItem[] =
    op.operation === 'bulk'
      ? op.request.operations
      : op.operation === 'create'
        ? [{ operation: 'create', record: op.request.record }]
        : [{ operation: 'update', ...op.request }]
  const ids = new Set<string>()
  for (const item of items) {
    if (item.operation === 'delete') return ['*']
    if (item.operation !== 'create') {
      ids.add(item.id)
      continue
    }
    const id = recordIdOf(item.record)
    if (id !== undefined) ids.add(id)
    if (isRelationshipRecord(item.record)) {
      const { source, target } = endpointIds(item.record)
      if (typeof source === 'string') ids.add(source)
      if (typeof target === 'string') ids.add(target)
    }
  }
  return [...ids]
}

function auditGroup(notes: AuditNote[], keyHash: string, context: RefWriteRequest['context']): AuditGroup {
  return {
    key: keyHash,
    correlation_id: context.correlation_id,
    source_offset: context.access.attributes.source_offset ?? null,
    rows: notes.map((note) => [note.before, note.after, note.outcome]),
  }
}
