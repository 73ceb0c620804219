import { isEngineError } from '../errors.js'
import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { LedgerWriter } from '../kernel/ledger.js'
import type { GraphAccess } from '../kernel/types.js'
import { type AuthorityPort, type AuthorityRequest, assignAuthority, suspendWrites } from './authority.js'
import { type BatchEntryAnswer, type BatchSlot, writeBatch } from './batch-writes.js'
import { messageOf, RefErrors } from './codes.js'
import type { Corpus } from './corpus.js'
import { auditGroup, type Evaluated, evaluateWrite, orderingKey, touchedIds } from './evaluate.js'
import { EVIDENCE_LEDGER, type EvidenceEntry, EvidenceState } from './evidence-state.js'
import { runFileCommand } from './files.js'
import { hashOrderingKey, transactionId } from './identity.js'
import { JOURNAL_LEDGER, type JournalLedgerEntry, RefJournal } from './journal.js'
import { packResponse } from './packed-response.js'
import { type ProjectionAttempts, Projector } from './projector.js'
import { DEFAULT_RETENTION } from './receipt-retention.js'
import { CanonicalGraph, indexRelationships, REF_WORKSPACE_ID } from './records.js'
import { recoveryPlan } from './recovery.js'
import type { ReferenceClient } from './reference-client.js'
import type { FileDescriptor, RefWriteRequest, WriteAuthority } from './request.js'
import type { RefRollback } from './rollback.js'
import { NO_SEARCH, type RefSearchPort, wireRollback } from './rollback-wiring.js'
import { type OutboxEntry, REF_LEDGER, type RefLedgerEntry, RefState, type StoredResponse } from './state.js'
import { projectionFigures, type StatusView, statusCounters, statusReport } from './status-report.js'
import { type Admission, type Admitted, admitWrite, type WriteCall, WritePermits } from './write-admission.js'
import { type RefOptions, type ResolvedRefOptions, resolveRefOptions } from './write-options.js'

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

/** Thrown inside a batch entry's payload transaction when an earlier entry of its batch was not applied. */
class BatchSkip {}

const DEFERRED = { deferDurability: true }

export class RefWrites {
  readonly state = new RefState()
  readonly journal = new RefJournal()
  readonly evidence = new EvidenceState()
  /** Every ledger of reference writes, defined on the kernel before recovery. */
  readonly ledgers = [this.state, this.journal, this.evidence] as const
  readonly rollback: RefRollback
  private readonly options: ResolvedRefOptions
  private readonly reference: ReferenceClient | null
  private readonly projector: Projector | null
  private relIndex: Map<string, number> | null = null
  private readonly inflight = new Set<string>()
  private readonly permits: WritePermits
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
    search: RefSearchPort = NO_SEARCH,
  ) {
    this.options = resolveRefOptions(options)
    this.permits = new WritePermits(this.options.maxConcurrency)
    this.legacyStateFile = options.legacyStateFile ?? null
    this.state.retention.window = options.receiptRetention ?? DEFAULT_RETENTION
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
              retry: { baseMs: this.options.retryIntervalMs, maxMs: this.options.retryMaxMs },
              batchMax: this.options.batchMax,
            },
          )
    this.rollback = wireRollback(
      engine,
      { state: this.state, journal: this.journal, evidence: this.evidence },
      options.referenceProbe ?? null,
      search,
      {
        commitEvidence: (entries) => this.commitLedger([], entries),
        relationshipIndex: () => this.relationshipIndex(),
        resetRelationshipIndex: () => {
          this.relIndex = null
        },
        replayWrite: (request) => this.write(request, { returned: true }),
        now: () => this.options.now(),
      },
    )
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
    const admitted = this.admit(body, call)
    if ('answer' in admitted) return admitted.answer
    this.permits.take()
    try {
      return (await this.run(admitted, null)) as StoredResponse
    } finally {
      this.permits.release()
    }
  }

  /**
   * The projection batch form: `bodies` in order, each its own write (own key, own answer), under one permit;
   * the first entry not applied stops the batch and later ones are skipped (batch-writes.ts).
   */
  writeBatch(bodies: unknown, call: WriteCall = {}): Promise<BatchEntryAnswer[]> {
    return writeBatch(bodies, call, {
      batchMax: this.options.batchMax,
      admit: (body, c) => this.admit(body, c),
      takePermit: () => this.permits.take(),
      releasePermit: () => this.permits.release(),
      run: (admitted, slot) => this.run(admitted, slot),
    })
  }

  private admit(body: unknown, call: WriteCall): Admission {
    return admitWrite(body, call, {
      state: this.state,
      options: this.options,
      tally: this.tally,
      inflight: this.inflight,
      blocked: this.blocked,
      persistent: this.engine.storageMode === 'persistent',
      projecting: this.projector !== null,
    })
  }

  /** Commits an admitted write; null when its batch stopped before it (nothing of it applied). */
  private async run(admitted: Admitted, slot: BatchSlot | null): Promise<StoredResponse | null> {
    const { request, keyHash, print, envelope } = admitted
    const deadline = request.context.deadline_unix_ms ?? null
    if (deadline !== null && this.options.now() > deadline) throw RefErrors.timeout()
    this.inflight.add(keyHash)
    try {
      return await this.commitWrite(request, keyHash, print, envelope, deadline, slot, admitted.projected)
    } finally {
      this.inflight.delete(keyHash)
    }
  }

  private async commitWrite(
    request: RefWriteRequest,
    keyHash: string,
    print: string,
    envelope: (outcome: StoredResponse['outcome']) => StoredResponse,
    deadline: number | null,
    slot: BatchSlot | null,
    projected: boolean,
  ): Promise<StoredResponse | null> {
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
            if (slot !== null && slot.gate.stopAt < slot.index) throw new BatchSkip()
            const evaluated = this.payload(
              tx,
              ledger,
              request,
              sequence,
              keyHash,
              print,
              stored,
              envelope,
              projected,
            )
            if (slot !== null && evaluated.applied === 0)
              slot.gate.stopAt = Math.min(slot.gate.stopAt, slot.index)
            return evaluated
          } catch (error) {
            if (slot !== null && !(error instanceof BatchSkip))
              slot.gate.stopAt = Math.min(slot.gate.stopAt, slot.index)
            throw error
          } finally {
            this.closeTurn(sequence)
          }
        })
        answer = result.value
        await intentDurable
      } catch (error) {
        if (error instanceof BatchSkip) {
          await this.drop(sequence)
          return null
        }
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
          response: packResponse(evaluated.response),
          at: this.options.now(),
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

  /** Projection requests, attempted entries, retries and the backoff's next retry (for /metrics). */
  projectionAttempts(): ProjectionAttempts {
    return (
      this.projector?.attempts() ?? {
        requests_total: 0,
        entries_total: 0,
        retries_total: 0,
        next_retry_at_ms: null,
        batch_supported: null,
      }
    )
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
