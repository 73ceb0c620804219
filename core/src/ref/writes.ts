import { isEngineError } from '../errors.js'
import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { LedgerWriter } from '../kernel/ledger.js'
import type { GraphAccess } from '../kernel/types.js'
import type { WriteFailure } from './apply.js'
import { type AuthorityPort, type AuthorityRequest, assignAuthority, suspendWrites } from './authority.js'
import { messageOf, RefErrors } from './codes.js'
import type { Corpus } from './corpus.js'
import {
  auditGroup,
  type Evaluated,
  evaluateWrite,
  limitProblem,
  orderingKey,
  touchedIds,
} from './evaluate.js'
import { EVIDENCE_LEDGER, type EvidenceEntry, EvidenceState } from './evidence-state.js'
import { runFileCommand } from './files.js'
import { fingerprint, hashKey, hashOrderingKey, transactionId } from './identity.js'
import { JOURNAL_LEDGER, type JournalLedgerEntry, RefJournal } from './journal.js'
import { Projector } from './projector.js'
import { CanonicalGraph, indexRelationships, REF_WORKSPACE_ID } from './records.js'
import { recoveryPlan } from './recovery.js'
import type { ReferenceClient } from './reference-client.js'
import type { ReferenceProbe } from './reference-probe.js'
import {
  type FileDescriptor,
  type RefWriteRequest,
  requestProblem,
  WRITE_OPERATIONS,
  type WriteAuthority,
} from './request.js'
import { RefRollback } from './rollback.js'
import { type OutboxEntry, REF_LEDGER, type RefLedgerEntry, RefState, type StoredResponse } from './state.js'
import { projectionFigures, type StatusView, statusCounters, statusReport } from './status-report.js'

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
  /** The reference's readiness, parity snapshot and journal, for the rollback's evidence (null: none). */
  referenceProbe?: ReferenceProbe | null
  /** Pause before a failed projection is retried in the background. */
  retryIntervalMs?: number
  /** Where a 0.3.0 deployment left its dual-write state (`<storage dir>/runtime/opencti-write-state.json`). */
  legacyStateFile?: string | null
  now?: () => number
}

export interface WriteCall {
  /** The HTTP request's correlation id, used when the body's own cannot be read. */
  correlationId?: string | undefined
  /** A write the reference accepted while primary, brought back by the return path: applied whatever the
   * authority, never projected back. */
  returned?: boolean
}

export type AuthorityTarget = WriteAuthority
export type { AuthorityRequest }

/** What `figures()` reports, for the operations plugin's sources. */
export type RefFigures = ReturnType<RefWrites['figures']>

export type FileCommand =
  | { operation: 'enqueue'; descriptor: FileDescriptor }
  | { operation: 'delete'; file_ids: string[] }

/** Thrown inside an atomic payload transaction to discard it; carries the answer for the caller. */
class AtomicAbort {
  constructor(readonly response: StoredResponse) {}
}

const DEFERRED = { deferDurability: true }

/** Full-text search on the canonical workspace, for the parity report (wired by the runtime). */
export interface RefSearchPort {
  fullText(objective: string): Promise<{ node_id: string; score: number }[]>
  fullTextDocuments(): Promise<number>
}

export class RefWrites {
  readonly state = new RefState()
  readonly journal = new RefJournal()
  readonly evidence = new EvidenceState()
  /** Every ledger of reference writes, defined on the kernel before recovery. */
  readonly ledgers = [this.state, this.journal, this.evidence] as const
  readonly rollback: RefRollback
  private readonly options: Required<Omit<RefOptions, 'reference' | 'referenceProbe' | 'legacyStateFile'>>
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
    private readonly engine: GraphAccess,
    options: RefOptions,
    /** The published graph of a workspace (the relationship index is rebuilt from it after recovery). */
    private readonly storeOf: (workspaceId: string) => GraphStore,
    search: RefSearchPort = { fullText: async () => [], fullTextDocuments: async () => 0 },
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
    this.rollback = new RefRollback({
      state: this.state,
      journal: this.journal,
      evidence: this.evidence,
      probe: options.referenceProbe ?? null,
      persistent: engine.storageMode === 'persistent',
      fullText: (objective) => search.fullText(objective),
      fullTextDocuments: () => search.fullTextDocuments(),
      readGraph: (fn) => this.engine.readGraph(REF_WORKSPACE_ID, fn),
      transact: async (fn) =>
        (await this.engine.transact(REF_WORKSPACE_ID, (tx, _store, ledger) => fn(tx, ledger))).value,
      commitEvidence: (entries) => this.commitLedger([], entries),
      relationshipIndex: () => this.relationshipIndex(),
      resetRelationshipIndex: () => {
        this.relIndex = null
      },
      replayWrite: (request) => this.write(request, { returned: true }),
      now: () => this.options.now(),
    })
  }

  private readonly legacyStateFile: string | null

  get mode(): 'elastic_free' | 'reversible_reference' {
    return this.reference === null ? 'elastic_free' : 'reversible_reference'
  }

  /** False while startup recovery found a committed write whose receipt cannot be read. */
  ready(): boolean {
    return this.blocked === null
  }

  private async commitLedger(entries: RefLedgerEntry[], evidence: EvidenceEntry[] = []): Promise<void> {
    await this.engine.transact(REF_WORKSPACE_ID, (_tx, _store, ledger) => {
      for (const entry of entries) ledger.write(REF_LEDGER, entry)
      for (const entry of evidence) ledger.write(EVIDENCE_LEDGER, entry)
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
    const plan = recoveryPlan(this.state, this.legacyStateFile)
    this.blocked = plan.blocked
    if (plan.entries.length > 0) await this.commitLedger(plan.entries)
    if (this.blocked === null) this.projector?.kick()
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
    const shapeProblem = limitProblem(request, this.options.maxOperations)
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
    const returned = call.returned === true
    if (!returned && this.state.authority !== 'service_primary')
      throw RefErrors.suspended(
        `writes are suspended: authority is ${this.state.authority}` +
          (this.state.trigger === null ? '' : ` (trigger ${this.state.trigger})`),
      )
    if (!returned && this.projector !== null && this.state.unresolved() >= this.options.outboxCapacity)
      throw RefErrors.suspended(
        `the projection outbox is full (${this.options.outboxCapacity} unresolved entries); retry with the same key`,
      )
    if (this.permits >= this.options.maxConcurrency) throw RefErrors.backpressure(this.options.maxConcurrency)
    const deadline = request.context.deadline_unix_ms ?? null
    if (deadline !== null && this.options.now() > deadline) throw RefErrors.timeout()

    this.permits += 1
    this.inflight.add(keyHash)
    try {
      return await this.commitWrite(request, keyHash, print, envelope, deadline, !returned)
    } finally {
      this.inflight.delete(keyHash)
      this.permits -= 1
    }
  }

  private async commitWrite(
    request: RefWriteRequest,
    keyHash: string,
    print: string,
    envelope: (outcome: StoredResponse['outcome']) => StoredResponse,
    deadline: number | null,
    projected: boolean,
  ): Promise<StoredResponse> {
    const context = request.context
    let sequence = 0
    // The intent is not awaited on its own: the payload is appended after it to the same ordered WAL, so the
    // payload's durability implies the intent's (one fsync wait per write). A crash between the two leaves
    // an intent alone, which startup recovery removes as abandoned.
    let intentDurable: Promise<void> | undefined
    try {
      const intent = await this.engine.transact(
        REF_WORKSPACE_ID,
        (_tx, _store, ledger) => {
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
        },
        DEFERRED,
      )
      intentDurable = intent.durable
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
          // The next payload may start once this one has run: it queues behind this transaction, so it
          // publishes after it while both share one group commit.
          try {
            return this.payload(tx, ledger, request, sequence, keyHash, print, stored, envelope, projected)
          } finally {
            this.closeTurn(sequence)
          }
        })
        answer = result.value
        await intentDurable
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
      if (answer.applied > 0 && projected) this.projector?.kick()
      return answer.response
    } finally {
      this.closeTurn(sequence)
    }
  }

  /** The payload commit's work: records, receipt, audit and outbox activation (or the intent's drop). */
  private payload(
    tx: Transaction,
    ledger: LedgerWriter,
    request: RefWriteRequest,
    sequence: number,
    keyHash: string,
    print: string,
    stored: RefWriteRequest,
    envelope: (outcome: StoredResponse['outcome']) => StoredResponse,
    projected: boolean,
  ): Evaluated {
    const context = request.context
    const graph = new CanonicalGraph(tx, this.relationshipIndex())
    const evaluated = evaluateWrite(request, graph, envelope)
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
        project: this.projector !== null && projected,
        request: this.projector !== null && projected ? stored : null,
        audit: auditGroup(evaluated.audits, keyHash, context),
      } satisfies RefLedgerEntry)
      // A store that projects nowhere may be serving as the reference: it keeps what a primary pulls back.
      if (this.projector === null)
        ledger.write(JOURNAL_LEDGER, {
          k: 'write',
          entry: {
            sequence,
            key: keyHash,
            request: stored,
            response: evaluated.response,
            bytes: JSON.stringify(stored).length + JSON.stringify(evaluated.response).length,
          },
        } satisfies JournalLedgerEntry)
    }
    // Folded in last: a throw above leaves the index as it was.
    const index = this.relationshipIndex()
    for (const [id, gid] of graph.relChanges) {
      if (gid === null) index.delete(id)
      else index.set(id, gid)
    }
    return evaluated
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

  // ---- status, projection, authority ------------------------------------------------------------

  /** The live figures /metrics and /version read (projection gauges, authority, mode). */
  figures() {
    return projectionFigures(this.statusView())
  }

  /** The status counters (FACTS §8 `result`), without the lists. */
  counters() {
    return statusCounters(this.statusView())
  }

  status() {
    return statusReport(this.statusView())
  }

  private statusView(): StatusView {
    return {
      state: this.state,
      retriesTotal: this.projector?.retriesTotal ?? 0,
      tally: this.tally,
      mode: this.mode,
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

  /** The reconstruction corpus (records, revisions, receipts of undelivered writes); counts a run. */
  async reconstruction(): Promise<Corpus> {
    const corpus = await this.rollback.corpus()
    this.tally.reconstruction_runs += 1
    return corpus
  }

  suspend(trigger: string): Promise<{ authority: 'writes_suspended' }> {
    return suspendWrites(this.authorityPort(), trigger)
  }

  /** Gated authority transitions (FACTS §8); see authority.ts. */
  assignAuthority(request: AuthorityRequest): Promise<{ authority: WriteAuthority }> {
    return assignAuthority(this.authorityPort(), request)
  }

  private authorityPort(): AuthorityPort {
    return {
      state: this.state,
      commit: (entries, evidence) => this.commitLedger(entries, evidence),
      evidence: (request) => this.rollback.evidenceFor(request),
    }
  }

  // ---- files -----------------------------------------------------------------------------------

  /** File-content jobs: `{operation:'enqueue', descriptor}` or `{operation:'delete', file_ids}`. */
  files(command: unknown) {
    return runFileCommand(command, {
      state: this.state,
      persistent: this.engine.storageMode === 'persistent',
      commit: (entries) => this.commitLedger(entries),
    })
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
