import { join } from 'node:path'
import type { CypherResult } from '../cypher/index.js'
import { Temporal } from '../explorer/temporal.js'
import { DomainGates } from '../gates/domain-gates.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import type { GraphStore } from '../graph/store.js'
import type { GraphReader } from '../graph/types.js'
import { AsRecordedReader } from '../history/as-recorded-reader.js'
import { checkCallShape } from '../kernel/cypher-call.js'
import { KernelErrors } from '../kernel/errors.js'
import {
  type BeginOptions,
  beginTransaction,
  type ExplicitTransaction,
} from '../kernel/explicit-transaction.js'
import { Kernel } from '../kernel/kernel.js'
import type {
  CallOptions,
  CypherCall,
  DerivedIndex,
  TransactFn,
  TransactOptions,
  TransactResult,
} from '../kernel/types.js'
import { MemoryService } from '../memory/service.js'
import { refSearch } from '../ref/search-port.js'
import { RefWrites } from '../ref/writes.js'
import { SeedSearch } from '../seed/search.js'
import { RequestAudit } from '../sessions/request-audit.js'
import { SessionManager } from '../sessions/session-manager.js'
import { SessionsApi } from '../sessions/sessions-api.js'
import { StixService } from '../stix/service.js'
import { StixVersions } from '../stix/versions.js'
import { TaxiiCollections } from '../taxii/collections.js'
import type { Engine, EngineOptions, ExplorerApi } from './engine.js'

/**
 * The runtime: builds the kernel, registers every feature through the kernel's ports (ledgers, journaled
 * state, derived indexes, commit hooks, readiness and close hooks) before recovery, opens, then starts
 * background work. As Kuzu loads its extensions before it reads the checkpoint, so every ledger and journal
 * kind is known when the log replays.
 */
export async function openEngine(options: EngineOptions = {}): Promise<Engine> {
  const kernel = new Kernel(options.storage?.mode ?? 'ephemeral', options)
  const engine = new RuntimeEngine(kernel, options)
  await kernel.open()
  engine.startBackgroundWork()
  await engine.ref.start()
  return engine
}

class RuntimeEngine implements Engine {
  readonly sessions: SessionsApi
  readonly explorer: ExplorerApi
  readonly memory: MemoryService
  readonly ref: RefWrites
  readonly seed: SeedSearch
  readonly stix: StixService
  readonly stixVersions: StixVersions
  readonly taxiiCollections: TaxiiCollections
  readonly domainGates = new DomainGates()
  private readonly sessionManager: SessionManager
  private readonly temporal: Temporal
  private readonly audit: RequestAudit

  constructor(
    private readonly kernel: Kernel,
    options: EngineOptions,
  ) {
    const now = kernel.now
    // Sessions and audit: journaled state, closed first on shutdown.
    this.sessionManager = new SessionManager({
      idleTtlMs: options.sessionIdleTtlMs ?? 0,
      now,
      // A follower's own reads are audited in its memory only: the shared log is the primary's to write.
      journal: {
        record: (kind, body) =>
          kind === 'audit' && kernel.replication()?.role === 'follower'
            ? Promise.resolve()
            : kernel.journal(kind, body),
      },
    })
    kernel.registerState(this.sessionManager)
    kernel.onClose(() => this.sessionManager.close())
    this.sessions = new SessionsApi(this.sessionManager)
    this.audit = new RequestAudit(this.sessionManager, now)

    // Temporal explorer: session timelines over the kernel's record history; every write made under a
    // session becomes a timeshot.
    this.temporal = new Temporal(
      kernel.catalog,
      kernel.histories,
      this.sessionManager,
      (kind, body) => kernel.journal(kind, body),
      now,
    )
    kernel.registerState(this.temporal)
    kernel.onCommitted((commits, sessionId, label) => this.timeshots(commits, sessionId, label))
    this.explorer = {
      timeline: (sessionId) => this.temporal.timelineOf(sessionId),
      graph: (sessionId, query = {}) => this.temporal.graph(sessionId, query),
      snapshot: async (sessionId, label = 'snapshot') => {
        await kernel.settled()
        return this.temporal.snapshot(sessionId, kernel.currentSequence(), label)
      },
    }

    // Ledgers of the embedding application, then of the features.
    for (const ledger of options.ledgers ?? []) kernel.defineLedger(ledger)

    // Seed search: a derived index kept current by commits, behind the domain gates.
    this.seed = SeedSearch.attach(kernel, { gates: this.domainGates })
    for (const procedure of this.seed.cypherProcedures()) kernel.cypherEngine.registerProcedure(procedure)

    this.memory = new MemoryService({
      transact: (workspaceId, fn, transactOptions) => this.transact(workspaceId, fn, transactOptions),
      readGraph: (workspaceId, fn) => kernel.readGraph(workspaceId, fn),
      asRecorded: (workspaceId, store, atMs) =>
        new AsRecordedReader(store, kernel.histories.of(workspaceId), atMs),
      seed: () => this.seed,
      now,
      sessionOpen: (id) => this.sessionManager.has(id) && this.sessionManager.get(id).status !== 'stopped',
      audited: (sessionId, workspaceId, event, input, work, output) =>
        this.audit.run(sessionId, workspaceId, event, input, work, output),
    })
    for (const ledger of this.memory.ledgers) kernel.defineLedger(ledger)

    const dir = options.storage?.dir
    const legacyStateFile = dir === undefined ? null : join(dir, 'runtime', 'opencti-write-state.json')
    this.ref = new RefWrites(
      this,
      { legacyStateFile, ...options.ref },
      (id) => kernel.catalog.workspace(id),
      refSearch(this.seed),
    )
    for (const ledger of this.ref.ledgers) kernel.defineLedger(ledger)
    kernel.addReadinessCheck(() => this.ref.ready())
    kernel.onClose(() => this.ref.close())

    // STIX: every import records object versions and their date added in a ledger; TAXII publishes
    // workspaces as collections whose ids are ledger state too.
    this.stixVersions = new StixVersions(now)
    kernel.defineLedger(this.stixVersions)
    this.taxiiCollections = new TaxiiCollections(
      { transact: (workspaceId, fn) => this.transact(workspaceId, fn) },
      this.stixVersions,
    )
    for (const ledger of this.taxiiCollections.ledgers) kernel.defineLedger(ledger)
    this.stix = new StixService(this, this.domainGates)
  }

  /** After open: the seed index catches up with the recovered graph in the background. */
  startBackgroundWork(): void {
    this.seed.warm().catch(() => {})
  }

  /** A timeshot per commit of a session's write; nothing (and no promise) for a write outside a session. */
  private timeshots(
    commits: readonly { seq: number; tx: string; workspace: string }[],
    sessionId: string | undefined,
    label: string | undefined,
  ): Promise<void> | undefined {
    if (sessionId === undefined) return undefined
    return this.addTimeshots(commits, sessionId, label)
  }

  private async addTimeshots(
    commits: readonly { seq: number; tx: string; workspace: string }[],
    sessionId: string,
    label: string | undefined,
  ): Promise<void> {
    for (const c of commits) {
      await this.temporal.addBoundary({
        kind: 'timeshot',
        session_id: sessionId,
        workspace_id: c.workspace,
        transaction_id: c.tx,
        label: label ?? `write ${c.tx}`,
        sequence: c.seq,
      })
    }
  }

  get storageMode() {
    return this.kernel.storageMode
  }

  get openedAtMs() {
    return this.kernel.openedAtMs
  }

  state() {
    return this.kernel.state()
  }

  isReady() {
    return this.kernel.isReady()
  }

  durability() {
    return this.kernel.durability()
  }

  payloads() {
    return this.kernel.payloadFigures()
  }

  recoveryFacts() {
    return this.kernel.recoveryFacts()
  }

  storageFaults() {
    return this.kernel.storageFaults()
  }

  replication() {
    return this.kernel.replication()
  }

  backup() {
    return this.kernel.backup()
  }

  waitForSequence(sequence: number, timeoutMs: number) {
    return this.kernel.waitForSequence(sequence, timeoutMs)
  }

  durableSequence() {
    return this.kernel.durableSequence()
  }

  cypher(input: CypherCall): Promise<CypherResult> {
    let call: CypherCall
    try {
      this.kernel.assertOpen()
      call = checkCallShape(input)
    } catch (error) {
      return Promise.reject(error)
    }
    const workspaceId = call.workspaceId ?? DEFAULT_WORKSPACE_ID
    // Without a session there is nothing to audit: skip building the audit input for every request.
    if (call.sessionId === undefined) return this.kernel.runCypher(call, workspaceId)
    return this.auditedCypher(call.sessionId, workspaceId, call, () =>
      this.kernel.runCypher(call, workspaceId),
    )
  }

  /** A Cypher request joins its session's audit log: the same record whichever door or transaction ran it. */
  private auditedCypher(
    sessionId: string,
    workspaceId: string,
    call: CypherCall,
    work: () => Promise<CypherResult>,
  ): Promise<CypherResult> {
    return this.audit.run(
      sessionId,
      workspaceId,
      'cypher',
      {
        forced_mode: call.forcedMode ?? null,
        requested_mode: call.mode,
        budget_ref: call.budgetRef ?? null,
        query: call.query,
        params: call.params ?? {},
        correlation_id: call.correlationId ?? null,
      },
      work,
      (result) => ({
        status: result.status,
        response_data_kind: result.data === null ? 'empty' : 'records',
        record_count: result.data?.rows.length ?? 0,
        warnings_count: result.warnings.length,
        validation_errors_count: result.validation_errors.length,
        mutation_summary: result.mutation_summary,
      }),
    )
  }

  beginTransaction(options: BeginOptions): ExplicitTransaction {
    this.kernel.assertOpen()
    const shaped = checkCallShape({
      query: 'BEGIN',
      workspaceId: options.workspaceId,
      sessionId: options.sessionId,
    })
    const sessionId = shaped.sessionId
    // A transaction under a session needs the session: its statements join the session's audit log.
    if (sessionId !== undefined) this.sessionManager.get(sessionId)
    const tx = beginTransaction(this.kernel, {
      ...options,
      workspaceId: shaped.workspaceId ?? DEFAULT_WORKSPACE_ID,
    })
    if (sessionId === undefined) return tx
    return {
      workspaceId: tx.workspaceId,
      mode: tx.mode,
      state: () => tx.state(),
      commit: () => tx.commit(),
      rollback: () => tx.rollback(),
      run: (statement) =>
        this.auditedCypher(sessionId, tx.workspaceId, { ...statement, mode: tx.mode }, () =>
          tx.run(statement),
        ),
    }
  }

  read(query: string, params?: Record<string, unknown>, options: CallOptions = {}): Promise<CypherResult> {
    return this.cypher({ ...options, query, params, mode: 'read', forcedMode: 'read' })
  }

  write(query: string, params?: Record<string, unknown>, options: CallOptions = {}): Promise<CypherResult> {
    return this.cypher({ ...options, query, params, mode: 'write', forcedMode: 'write' })
  }

  transact<T>(
    workspaceId: string,
    fn: TransactFn<T>,
    options: TransactOptions = {},
  ): Promise<TransactResult<T>> {
    this.kernel.assertOpen()
    // A write under a session needs the session (SESSION_NOT_FOUND otherwise): its timeshot names it.
    if (options.sessionId !== undefined) this.sessionManager.get(options.sessionId)
    return this.kernel.transact(workspaceId, fn, options)
  }

  transactInSlices<T>(
    workspaceId: string,
    fn: TransactFn<Promise<T>>,
    options: TransactOptions = {},
  ): Promise<TransactResult<T>> {
    this.kernel.assertOpen()
    if (options.sessionId !== undefined) this.sessionManager.get(options.sessionId)
    return this.kernel.transactInSlices(workspaceId, fn, options)
  }

  readGraph<T>(workspaceId: string, fn: (store: GraphStore) => T): Promise<T> {
    return this.kernel.readGraph(workspaceId, fn)
  }

  async readAt<T>(workspaceId: string, snapshotId: string, fn: (reader: GraphReader) => T): Promise<T> {
    if (snapshotId === 'snapshot--current') return this.kernel.readGraph(workspaceId, fn)
    const boundary = this.temporal.timeline.get(snapshotId)
    const read =
      boundary === undefined || boundary.workspace_id !== workspaceId
        ? null
        : await this.kernel.readAsOf(workspaceId, boundary.sequence, fn)
    if (read === null) throw KernelErrors.snapshotNotFound(snapshotId, workspaceId)
    return read.value
  }

  registerDerivedIndex(index: DerivedIndex): void {
    this.kernel.registerDerivedIndex(index)
  }

  currentSequence(): number {
    return this.kernel.currentSequence()
  }

  checkpoint(): Promise<void> {
    return this.kernel.checkpoint()
  }

  close(): Promise<void> {
    return this.kernel.close()
  }

  /** Test hook: the next WAL write fails as a broken disk would (persistent mode only). */
  injectStorageFailure(error: Error): void {
    this.kernel.injectStorageFailure(error)
  }

  /** Test hook: the injected storage failure clears; writes resume in place. */
  clearStorageFailure(): void {
    this.kernel.clearStorageFailure()
  }
}
