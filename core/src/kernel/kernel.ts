import { CypherEngine, type CypherResult } from '../cypher/index.js'
import { SchemaCatalog } from '../cypher/schema/catalog.js'
import { GraphCatalog } from '../graph/catalog.js'
import type { GraphStore } from '../graph/store.js'
import type { GraphReader } from '../graph/types.js'
import { AsOfReader } from '../history/as-of-reader.js'
import { BackupGate, type OnlineBackup } from '../storage/backup/online-backup.js'
import { type DurabilityReport, ephemeralDurability } from '../storage/durability.js'
import type { DurableStore, ReplicationReport } from '../storage/durable-store.js'
import { Checkpointer } from './checkpointer.js'
import { CommitHooks } from './commit-hooks.js'
import { CommitPipeline, type PendingDurability } from './commit-pipeline.js'
import { KernelErrors } from './errors.js'
import { Histories } from './histories.js'
import { ImageSource } from './image-source.js'
import { type Ledger, LedgerRegistry } from './ledger.js'
import { recover, recoveryFacts, reloadDurable } from './recovery.js'
import { Replication } from './replication.js'
import { StorageFaultRecovery, type StorageFaultReport } from './storage-fault-recovery.js'
import type {
  CommitHook,
  CypherCall,
  DerivedIndex,
  EngineState,
  GraphAccess,
  JournaledState,
  KernelOptions,
  PayloadFigures,
  StorageMode,
  TransactFn,
  TransactOptions,
  TransactResult,
} from './types.js'
import { VisibilityGate } from './visibility-gate.js'

/**
 * The kernel: graph catalog, Cypher executor, commit pipeline (WAL, visibility gate, record history), recovery
 * and checkpoints. It knows no feature: features register their ledgers, journaled state, derived indexes,
 * commit hooks, readiness checks and close hooks before `open()`, and the kernel drives them.
 */
export class Kernel implements GraphAccess {
  readonly catalog = new GraphCatalog()
  readonly cypherEngine: CypherEngine
  readonly histories: Histories
  readonly ledgers = new LedgerRegistry()
  readonly openedAtMs: number
  readonly now: () => number
  private readonly gate = new VisibilityGate()
  private storage: DurableStore | null = null
  /** What a checkpoint writes: the inverse of recovery over the same targets. */
  private readonly image: ImageSource
  /** The follower's apply loop and read-your-writes waiting. */
  private readonly replicas: Replication
  private current: EngineState = 'open'
  private readonly checkpointer: Checkpointer
  private readonly derived: DerivedIndex[] = []
  private readonly states: JournaledState[] = []
  private readonly commitHooks = new CommitHooks()
  private readonly readiness: (() => boolean)[] = []
  private readonly closeHooks: (() => void)[] = []
  private opened = false
  /** The write path: journal, graph commits, Cypher calls, transactions, durable reads. */
  private readonly pipeline: CommitPipeline
  /** Bumped each time the state is rebuilt from the durable log after a storage failure. */
  private epoch = 0
  private readonly faults: StorageFaultRecovery
  private readonly backups = new BackupGate()

  constructor(
    readonly storageMode: StorageMode,
    private readonly options: KernelOptions,
  ) {
    this.now = options.now ?? Date.now
    this.openedAtMs = this.now()
    this.histories = new Histories(this.catalog, options.historyMaxVersions ?? 2_000_000)
    const kernel = this
    this.pipeline = new CommitPipeline({
      catalog: this.catalog,
      ledgers: this.ledgers,
      histories: this.histories,
      gate: this.gate,
      commitHooks: this.commitHooks,
      derived: this.derived,
      get checkpointer() {
        return kernel.checkpointer
      },
      get cypherEngine() {
        return kernel.cypherEngine
      },
      storage: () => this.storage,
      epoch: () => this.epoch,
      assertOpen: () => this.assertOpen(),
    })
    // Declared indexes and constraints: journaled state, so they outlive restarts.
    const schema = new SchemaCatalog((kind, body) => this.journal(kind, body))
    this.states.push(schema)
    this.cypherEngine = new CypherEngine(this.catalog, {
      schema,
      ...(options.cypherBudgets ? { budgets: options.cypherBudgets } : {}),
      beforePublish: (commit, workspaceId, _sequence, context) =>
        this.pipeline.logCommit(commit, workspaceId, context as PendingDurability | undefined),
      ...(options.cypherImport ? { csvImport: options.cypherImport } : {}),
      awaitReadable: async () => {
        await this.gate.enterRead()
        this.gate.exitRead()
      },
      onBatch: (progress, context) =>
        options.onCypherBatch?.({
          ...progress,
          correlationId: (context as PendingDurability | undefined)?.correlationId,
        }),
      // A batched write (CALL { } IN TRANSACTIONS) waits for each batch's commit to be durable.
      awaitDurable: (context) => {
        const durables = (context as PendingDurability | undefined)?.durables
        return durables && durables.length > 0 ? Promise.all(durables).then(() => undefined) : undefined
      },
    })
    this.replicas = new Replication({
      storage: () => this.storage,
      localSequence: () => this.pipeline.localSeq,
      recoveryTargets: () => this.recoveryTargets(),
      indexCommit: (workspace, ops) => this.pipeline.indexCommit(workspace, ops),
      reload: () => this.reloadDurable(),
      warn: (message) => options.onWarning?.(message),
    })
    this.faults = new StorageFaultRecovery(
      {
        reload: () => this.reloadDurable(),
        resume: async () => {
          await this.storage?.resumeLog()
          this.gate.resumed()
        },
        readsUnavailable: (error) => this.gate.readsUnavailable(error),
      },
      this.now,
      options.onWarning,
    )
    this.image = new ImageSource(
      this.recoveryTargets(),
      () => this.storage?.payloads,
      options.storage?.payloadMinBytes,
    )
    this.checkpointer = new Checkpointer(() => this.storage, this.gate, this.image, {
      failed: (error) => {
        this.faults.checkpointFailed(error)
        options.onWarning?.(`checkpoint failed: ${error.message}`)
      },
      succeeded: () => this.faults.checkpointSucceeded(),
    })
  }

  // ── Registration (before open) ─────────────────────────────────────────────────────────────────────

  defineLedger(ledger: Ledger): void {
    this.ledgers.define(ledger)
  }

  /** Journaled feature state; its records and checkpoint lines replay at recovery. */
  registerState(state: JournaledState): void {
    if (this.opened) throw new Error('journaled state registered after the kernel opened')
    this.states.push(state)
  }

  /** Registers an index derived from the graph: rebuilt now and after recovery, updated after every commit. */
  registerDerivedIndex(index: DerivedIndex): void {
    this.derived.push(index)
    index.rebuild(this.workspaces())
  }

  /** Runs after every durable write, in registration order. */
  onCommitted(hook: CommitHook): void {
    this.commitHooks.add(hook)
  }

  /** `isReady()` is false while any check says so. */
  addReadinessCheck(check: () => boolean): void {
    this.readiness.push(check)
  }

  /** Runs when the kernel starts closing, before the final checkpoint. */
  onClose(hook: () => void): void {
    this.closeHooks.push(hook)
  }

  // ── Lifecycle ──────────────────────────────────────────────────────────────────────────────────────

  async open(): Promise<void> {
    this.opened = true
    this.ledgers.seal()
    const s = this.options.storage
    if (this.storageMode !== 'persistent' || s === undefined) return
    if (s.dir === undefined && s.postgres === undefined) throw KernelErrors.storageDirRequired()
    this.storage = await recover(s, this.options, this.recoveryTargets())
    this.storage.listen({
      durable: (seq) => {
        this.gate.durable(seq)
        this.replicas.reached(seq)
      },
      failed: (error) => {
        this.gate.logFailed(error)
        this.faults.logFailed(error)
      },
    })
    // Recovery filled the catalog without commits: derived indexes start over from what it holds.
    const workspaces = this.workspaces()
    for (const index of this.derived) index.rebuild(workspaces)
    if (this.storage.replication().role === 'follower') this.replicas.follow(this.storage)
  }

  private recoveryTargets() {
    return { catalog: this.catalog, histories: this.histories, ledgers: this.ledgers, states: this.states }
  }

  /** Where the durable state lives, this process's role, and a follower's lag. */
  replication(): ReplicationReport | null {
    return this.replicas.report()
  }

  /** Read-your-writes: true once commit `sequence` is visible here, false after `timeoutMs` (replication.ts). */
  waitForSequence(sequence: number, timeoutMs: number): Promise<boolean> {
    return this.replicas.waitForSequence(sequence, timeoutMs)
  }

  /** The newest durable commit sequence: what a write's answer names for a later read-your-writes. */
  durableSequence(): number {
    return this.replicas.durableSequence()
  }

  /**
   * Rebuilds every state from what is durable after a log failure (the published state held commits that
   * will never be): graph, history, ledgers, journaled state, then the derived indexes. Synchronous.
   */
  private async reloadDurable(): Promise<void> {
    const storage = this.storage
    if (storage === null) return
    this.epoch++
    const seq = await reloadDurable(storage, this.recoveryTargets())
    const workspaces = this.workspaces()
    for (const index of this.derived) index.rebuild(workspaces)
    this.gate.reloaded(seq)
  }

  /** An online backup of the durable store at its durable sequence, streamed while writes go on. */
  backup(): Promise<OnlineBackup> {
    return this.backups.start(this.storage, this.now)
  }

  /** Storage fault handling as /health and /metrics report it. */
  storageFaults(): StorageFaultReport {
    return this.faults.status()
  }

  private workspaces(): ReadonlyMap<string, GraphStore> {
    return new Map(this.catalog.workspaceIds().map((id) => [id, this.catalog.workspace(id)]))
  }

  state(): EngineState {
    return this.current
  }

  /** True once recovery finished, the log is healthy and every registered check agrees. */
  isReady(): boolean {
    return (
      this.current === 'open' &&
      this.gate.failed === null &&
      this.storage?.failed == null &&
      this.readiness.every((check) => check())
    )
  }

  durability(): DurabilityReport {
    if (this.storage === null) return ephemeralDurability()
    const report = this.storage.durability()
    return this.gate.failed ? { ...report, recovery: { ...report.recovery, outcome: 'unavailable' } } : report
  }

  recoveryFacts() {
    return recoveryFacts(this.storage?.recovery)
  }

  /** The payload file and its cache (file store); null when values stay resident (ephemeral, PostgreSQL). */
  payloadFigures(): PayloadFigures | null {
    return this.image.payloadFigures()
  }

  /** Reads go on after a storage failure (writes are refused by the gate). */
  assertOpen(): void {
    if (this.current !== 'open') throw KernelErrors.closed()
  }

  /** The commit sequence of the newest published commit. */
  currentSequence(): number {
    return this.storage === null ? this.pipeline.localSeq : this.storage.lastSeq
  }

  /** Waits until every published commit is visible to readers (none held back by durability). */
  async settled(): Promise<void> {
    await this.gate.enterRead()
    this.gate.exitRead()
  }

  // ── Writes and reads (commit-pipeline.ts) ──────────────────────────────────────────────────────────

  /** Feature records share the WAL with graph commits (nothing to do when ephemeral). */
  journal(kind: string, body: unknown): Promise<void> {
    return this.pipeline.journal(kind, body)
  }

  /** Runs one Cypher call (shape already checked); writes wait for durability and run the commit hooks. */
  runCypher(call: CypherCall, workspaceId: string): Promise<CypherResult> {
    return this.pipeline.runCypher(call, workspaceId)
  }

  transact<T>(
    workspaceId: string,
    fn: TransactFn<T>,
    options: TransactOptions = {},
  ): Promise<TransactResult<T>> {
    return this.pipeline.transact(workspaceId, fn, options)
  }

  transactInSlices<T>(
    workspaceId: string,
    fn: TransactFn<Promise<T>>,
    options: TransactOptions = {},
  ): Promise<TransactResult<T>> {
    return this.pipeline.transactInSlices(workspaceId, fn, options)
  }

  readGraph<T>(workspaceId: string, fn: (store: GraphStore) => T): Promise<T> {
    return this.pipeline.readGraph(workspaceId, fn)
  }

  /**
   * Runs `fn` on the workspace graph as it was at commit `sequence`, read from record history; null when the
   * retained history no longer reaches that far back.
   */
  async readAsOf<T>(
    workspaceId: string,
    sequence: number,
    fn: (reader: GraphReader) => T,
  ): Promise<{ value: T } | null> {
    const history = this.histories.of(workspaceId)
    if (sequence < history.floorSeq) return null
    const value = await this.readGraph(workspaceId, (store) => fn(new AsOfReader(store, history, sequence)))
    return { value }
  }

  /** Test hook: the WAL fails now and the storage keeps failing until cleared (persistent mode only). */
  injectStorageFailure(error: Error): void {
    if (this.storage === null) throw new Error('injectStorageFailure needs persistent storage')
    this.storage.injectFailure(error)
  }

  /** Test hook: the storage answers again; the recovery in place then resumes writes. */
  clearStorageFailure(): void {
    this.storage?.clearInjectedFailure()
  }

  // ── Checkpoints and close ──────────────────────────────────────────────────────────────────────────

  /** Writes a checkpoint now (persistent mode); a no-op when ephemeral. */
  checkpoint(): Promise<void> {
    return this.checkpointer.checkpoint()
  }

  /** Flushes, checkpoints (persistent) and releases everything; idempotent. */
  async close(): Promise<void> {
    if (this.current !== 'open') return
    this.current = 'closing'
    this.faults.stop()
    for (const hook of this.closeHooks) hook()
    try {
      await this.checkpointer.settle()
      if (
        this.storage !== null &&
        this.options.storage?.checkpointOnClose !== false &&
        this.gate.failed === null &&
        this.storage.failed === null &&
        // Nothing logged since the last image: rewriting it (a gigabyte at 2M objects) would change nothing.
        this.storage.durability().wal_lag_sequences > 0
      ) {
        await this.checkpoint()
      }
    } finally {
      await this.storage?.close()
      this.current = 'closed'
    }
  }
}
