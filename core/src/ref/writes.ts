import { isEngineError } from '../errors.js'
import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { LedgerWriter } from '../kernel/ledger.js'
import type { GraphAccess } from '../kernel/types.js'
import { type AuthorityPort, type AuthorityRequest, assignAuthority, suspendWrites } from './authority.js'
import { commitGroup, type GroupCommitPort, type IndexUndo, revertIndex } from './batch-commit.js'
import { type BatchEntryAnswer, writeBatch } from './batch-writes.js'
import { messageOf, RefErrors } from './codes.js'
import type { Corpus } from './corpus.js'
import { auditGroup, type Evaluated, evaluateWrite } from './evaluate.js'
import { EVIDENCE_LEDGER, type EvidenceEntry, EvidenceState } from './evidence-state.js'
import { runFileCommand } from './files.js'
import { transactionId } from './identity.js'
import { JOURNAL_LEDGER, type JournalLedgerEntry, RefJournal } from './journal.js'
import { outboxIntent, PayloadTurns, storedRequest } from './outbox-intent.js'
import { packResponse } from './packed-response.js'
import { type ProjectionAttempts, Projector } from './projector.js'
import { DEFAULT_RETENTION } from './receipt-retention.js'
import { CanonicalGraph, indexRelationships, REF_WORKSPACE_ID } from './records.js'
import { recoveryPlan } from './recovery.js'
import type { ReferenceClient } from './reference-client.js'
import type { FileDescriptor, RefWriteRequest, WriteAuthority } from './request.js'
import { LIVE_REQUEST, requestByOps } from './request-by-ops.js'
import type { RefRollback } from './rollback.js'
import { NO_SEARCH, type RefSearchPort, wireRollback } from './rollback-wiring.js'
import { REF_LEDGER, type RefLedgerEntry, RefState, type StoredResponse } from './state.js'
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
  private readonly turns = new PayloadTurns()
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
      return await this.run(admitted)
    } finally {
      this.permits.release()
    }
  }

  /**
   * The projection batch form: `bodies` in order, each its own write (own key, own answer), under one permit
   * and committed as one group (batch-commit.ts); the first entry not applied stops the batch and later
   * ones are skipped (batch-writes.ts).
   */
  writeBatch(bodies: unknown, call: WriteCall = {}): Promise<BatchEntryAnswer[]> {
    return writeBatch(bodies, call, {
      batchMax: this.options.batchMax,
      admit: (body, c) => this.admit(body, c),
      hold: (admitted) => this.inflight.add(admitted.keyHash),
      takePermit: () => this.permits.take(),
      releasePermit: () => this.permits.release(),
      commit: (admitted) => commitGroup(admitted, this.groupPort),
    })
  }

  private readonly groupPort: GroupCommitPort = {
    now: () => this.options.now(),
    intents: async (admitted) => {
      let first = 0
      try {
        const intent = await this.engine.transact(
          REF_WORKSPACE_ID,
          (_tx, _store, ledger) => {
            first = this.state.nextSequence
            for (const [i, a] of admitted.entries()) this.writeIntent(ledger, a.request, a.keyHash, first + i)
          },
          DEFERRED,
        )
        return { first, durable: intent.durable }
      } catch (error) {
        if (first > 0) for (let i = 0; i < admitted.length; i++) this.turns.close(first + i)
        throw error
      }
    },
    turnBefore: (sequence) => this.turns.before(sequence),
    closeTurn: (sequence) => this.turns.close(sequence),
    transact: async (fn) =>
      (await this.engine.transact(REF_WORKSPACE_ID, (tx, _store, ledger) => fn(tx, ledger))).value,
    payload: (tx, ledger, a, sequence, undo) =>
      this.payload(
        tx,
        ledger,
        a.request,
        sequence,
        a.keyHash,
        a.print,
        storedRequest(a.request, a.keyHash),
        a.envelope,
        a.projected,
        undo,
      ),
    abortAnswer: (error) => (error instanceof AtomicAbort ? error.response : null),
    revertIndex: (undo) => revertIndex(this.relationshipIndex(), undo),
    settled: (a, applied, failed) => {
      this.tally.applied_operations += applied
      this.tally.failed_operations += failed
      if (applied > 0 && a.projected) this.projector?.kick()
    },
    release: (a) => this.inflight.delete(a.keyHash),
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

  /** Commits an admitted write. */
  private async run(admitted: Admitted): Promise<StoredResponse> {
    const { request, keyHash, print, envelope } = admitted
    const deadline = request.context.deadline_unix_ms ?? null
    if (deadline !== null && this.options.now() > deadline) throw RefErrors.timeout()
    this.inflight.add(keyHash)
    try {
      return await this.commitWrite(request, keyHash, print, envelope, deadline, admitted.projected)
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
    projected: boolean,
  ): Promise<StoredResponse> {
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
          this.writeIntent(ledger, request, keyHash, sequence)
        },
        DEFERRED,
      )
      intentDurable = intent.durable
    } catch (error) {
      if (sequence > 0) this.turns.close(sequence)
      throw RefErrors.stateFailed(`the write-ahead intent could not be persisted: ${messageOf(error)}`)
    }
    try {
      await this.turns.before(sequence)
      if (deadline !== null && this.options.now() > deadline) {
        await this.drop(sequence)
        throw RefErrors.timeout()
      }
      const stored = storedRequest(request, keyHash)
      let answer: { response: StoredResponse; applied: number; failed: number }
      try {
        const result = await this.engine.transact(REF_WORKSPACE_ID, (tx, _store, ledger) => {
          // The next payload may start once this one has run: it queues behind this transaction, so it
          // publishes after it while both share one group commit.
          try {
            return this.payload(tx, ledger, request, sequence, keyHash, print, stored, envelope, projected)
          } finally {
            this.turns.close(sequence)
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
      this.turns.close(sequence)
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
    /** Given in a group commit: the index's previous values, to restore if the group is discarded. */
    undo?: IndexUndo,
  ): Evaluated {
    const context = request.context
    const opsBefore = tx.opCount
    const graph = new CanonicalGraph(tx, this.relationshipIndex(), this.storeOf(REF_WORKSPACE_ID))
    const evaluated = evaluateWrite(request, graph, envelope)
    if (evaluated.applied === 0) {
      if (evaluated.abort) throw new AtomicAbort(evaluated.response)
      ledger.write(REF_LEDGER, { k: 'drop', sequences: [sequence] } satisfies RefLedgerEntry)
    } else {
      const project = this.projector !== null && projected
      const journal = this.projector === null
      // A bulk create's records are in the commit's ops already: its request is logged by reference to them.
      const byOps = project || journal ? requestByOps(stored, opsBefore, tx.opCount) : null
      const compact = byOps === null ? {} : { request_ops: byOps, [LIVE_REQUEST]: stored }
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
        project,
        request: project && byOps === null ? stored : null,
        ...(project ? compact : {}),
        audit: auditGroup(evaluated.audits, keyHash, context),
      } satisfies RefLedgerEntry)
      // A store that projects nowhere may be serving as the reference: it keeps what a primary pulls back.
      if (journal)
        ledger.write(JOURNAL_LEDGER, {
          k: 'write',
          entry: {
            sequence,
            key: keyHash,
            request: byOps === null ? stored : null,
            response: evaluated.response,
            bytes: JSON.stringify(stored).length + JSON.stringify(evaluated.response).length,
          },
          ...compact,
        } satisfies JournalLedgerEntry)
    }
    // Folded in last: a throw above leaves the index as it was.
    const index = this.relationshipIndex()
    for (const [id, gid] of graph.relChanges) {
      undo?.push([id, index.get(id)])
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

  /** A write's outbox intent at `sequence`, whose payload turn opens with it. */
  private writeIntent(
    ledger: LedgerWriter,
    request: RefWriteRequest,
    keyHash: string,
    sequence: number,
  ): void {
    this.turns.open(sequence)
    const entry = outboxIntent(request, keyHash, sequence)
    ledger.write(REF_LEDGER, { k: 'intent', entry } satisfies RefLedgerEntry)
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
