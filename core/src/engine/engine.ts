import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import type { CypherBudgets } from '../cypher/index.js'
import {
  CypherEngine,
  type CypherMode,
  type CypherRequest,
  type CypherResult,
  type RunOptions,
} from '../cypher/index.js'
import { EngineError, isEngineError } from '../errors.js'
import { DEFAULT_WORKSPACE_ID, GraphCatalog } from '../graph/catalog.js'
import type { CommitRecord } from '../graph/commit.js'
import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { GraphReader } from '../graph/types.js'
import { AsOfReader } from '../history/as-of-reader.js'
import { type MemoryApi, MemoryService } from '../memory/service.js'
import { type RefOptions, RefWrites } from '../ref/writes.js'
import { SeedSearch } from '../seed/search.js'
import { SessionManager } from '../sessions/session-manager.js'
import { StixVersions } from '../stix/versions.js'
import { PersistentStorage } from '../storage/persistent-storage.js'
import type { WalRecord } from '../storage/wal-record.js'
import { TaxiiCollections } from '../taxii/collections.js'
import { SERVICE_VERSION } from '../version.js'
import { checkCallShape } from './cypher-call.js'
import { type DurabilityReport, ephemeralDurability } from './durability.js'
import { type GraphImageLine, GraphImageLoader, graphImage } from './graph-image.js'
import { type Ledger, type LedgerEntry, LedgerRegistry, type LedgerWriter } from './ledger.js'
import { SessionsApi } from './sessions-api.js'
import { type GraphQuery, Temporal, type TemporalLine } from './temporal.js'
import { VisibilityGate } from './visibility-gate.js'

export type StorageMode = 'ephemeral' | 'persistent'

export interface StorageOptions {
  mode: StorageMode
  /** Graph directory; required in persistent mode. */
  dir?: string
  requireFsync?: boolean
  strictRecovery?: boolean
  /** Advanced: WAL segment size and checkpoint cadence. */
  segmentBytes?: number
  checkpointEveryBytes?: number
  checkpointEveryMs?: number
}

export interface EngineOptions {
  storage?: StorageOptions
  /** Idle time-to-live of sessions in ms; 0 disables. */
  sessionIdleTtlMs?: number
  cypherBudgets?: Partial<CypherBudgets>
  /** Milliseconds since the epoch; injectable so tests control time. */
  now?: () => number
  /** Receives recovery warnings (torn tails truncated, fallbacks taken). */
  onWarning?: (message: string) => void
  /** Bound on retained record versions (before-images); older history is dropped past it. */
  historyMaxVersions?: number
  /** Ledgers of an embedding application, defined before recovery so their entries replay. */
  ledgers?: Ledger[]
  /** Reference-platform writes: bounds and the reference to project to (none: a service-only store). */
  ref?: RefOptions
}

export type EngineState = 'open' | 'closing' | 'closed'

export interface CypherCall {
  query: string
  params?: Record<string, unknown> | undefined
  mode: CypherMode
  workspaceId?: string | undefined
  /** Groups the request under a session: its state machine and audit trail. */
  sessionId?: string | undefined
  budgetRef?: string | undefined
  /** The mode the route forced (read/write), for the audit record. */
  forcedMode?: 'read' | 'write' | null
  correlationId?: string | undefined
  signal?: AbortSignal | undefined
  /** Epoch ms by which an answer is needed; a query still running then stops with REQUEST_TIMEOUT. */
  deadline?: number | undefined
}

export type CallOptions = Omit<CypherCall, 'query' | 'params' | 'mode'>

/**
 * The embedded API. The HTTP server is one door onto it; an application can hold it in-process.
 */
export interface Engine {
  readonly storageMode: StorageMode
  readonly openedAtMs: number
  state(): EngineState
  /** True once recovery finished and the engine accepts work. */
  isReady(): boolean
  durability(): DurabilityReport
  /** Runs a Cypher request in the given mode (read, write, validate or auto). */
  cypher(call: CypherCall): Promise<CypherResult>
  /** Read-only Cypher: a query that would write is Rejected with WRITE_PERMISSION_REQUIRED. */
  read(query: string, params?: Record<string, unknown>, options?: CallOptions): Promise<CypherResult>
  /** Cypher that may write; acknowledged only once durable (persistent mode) and published. */
  write(query: string, params?: Record<string, unknown>, options?: CallOptions): Promise<CypherResult>
  readonly sessions: SessionsApi
  /** Reference-platform transactional writes, projection outbox and write authority. */
  readonly ref: RefWrites
  /** The read-only temporal explorer: timeline, bounded projections and explicit snapshots. */
  readonly explorer: ExplorerApi
  /** Natural-language seed search (full-text, semantic, vector, hybrid); set an embedding provider on
   * `seed.embeddings` for the dense modes. */
  readonly seed: SeedSearch
  /** The memory contract v1: `memory.execute(request, context)` answers exactly as POST /v1/memory/operations. */
  readonly memory: MemoryApi
  /** Versions of the STIX objects of every workspace and the date each was added (STIX import keeps it). */
  readonly stixVersions: StixVersions
  /** TAXII 2.1 collection ids, one per published workspace, kept durably. */
  readonly taxiiCollections: TaxiiCollections
  /**
   * Runs `fn` against a write transaction of one workspace and commits what it did atomically, through the
   * same path as Cypher writes (WAL + fsync, visibility gate, record history, session timeshot). Ledger
   * entries written through `ledger` commit in the same WAL record. A throw commits nothing. Resolves once
   * durable; a failed durability gate rejects with DURABILITY_FAILED.
   */
  transact<T>(
    workspaceId: string,
    fn: (tx: Transaction, store: GraphStore, ledger: LedgerWriter) => T,
    options?: TransactOptions,
  ): Promise<TransactResult<T>>
  /** Runs `fn` synchronously on the published graph of a workspace, with no non-durable commit visible. */
  readGraph<T>(workspaceId: string, fn: (store: GraphStore) => T): Promise<T>
  /**
   * Runs `fn` on the workspace graph as of a snapshot (or timeshot) boundary, read from record history;
   * `snapshot--current` is the published graph. An unknown boundary, or one of another workspace, is 404
   * SNAPSHOT_NOT_FOUND.
   */
  readAt<T>(workspaceId: string, snapshotId: string, fn: (reader: GraphReader) => T): Promise<T>
  /** Registers an index derived from the graph: rebuilt now and after recovery, updated after every commit. */
  registerDerivedIndex(index: DerivedIndex): void
  /** The commit sequence of the newest published commit. */
  currentSequence(): number
  /** Writes a checkpoint now (persistent mode); a no-op when ephemeral. */
  checkpoint(): Promise<void>
  /** Flushes, checkpoints (persistent) and releases everything; idempotent. */
  close(): Promise<void>
  /** Facts about the last recovery, for operators and benchmarks. */
  recoveryFacts(): {
    replayed_transactions: number
    checkpoint_records: number
    recovery_path: string | null
    elapsed_ms: number
    warnings: string[]
  }
}

export interface TransactOptions {
  sessionId?: string | undefined
  /** Label of the session timeshot recorded for this write. */
  label?: string | undefined
  /**
   * Resolve once published, not once durable; `durable` in the result settles with the fsync. For a commit
   * that a later awaited commit makes durable anyway (the WAL is one ordered log).
   */
  deferDurability?: boolean | undefined
}

export interface TransactResult<T> {
  value: T
  /** Commit sequence, or null when `fn` changed nothing. */
  sequence: number | null
  transaction_id: string | null
  /** With `deferDurability`: settles once the commit is durable (rejects as an awaited commit would throw). */
  durable?: Promise<void>
}

/** A structure derived from the graph (full-text index, vectors, …), kept current by the engine. */
export interface DerivedIndex {
  readonly name: string
  /** Build from scratch from every workspace (at registration and after recovery). */
  rebuild(workspaces: ReadonlyMap<string, GraphStore>): void
  /** After a commit is published: `ops` are its redo ops, `store` the workspace graph as it now is. */
  onCommit(workspaceId: string, store: GraphStore, ops: CommitRecord['ops']): void
}

export interface ExplorerApi {
  timeline(sessionId: string): ReturnType<Temporal['timelineOf']>
  graph(sessionId: string, query?: GraphQuery): ReturnType<Temporal['graph']>
  /** Pins the session's workspace graph as it is now under a name; returns the boundary. */
  snapshot(sessionId: string, label?: string): Promise<ReturnType<Temporal['timeline']['add']>>
}

interface PendingDurability {
  durables: Promise<void>[]
  commits: { seq: number; tx: string; workspace: string; ops: CommitRecord['ops'] }[]
}

/** The WAL body of a graph commit; `ledgers` is absent in records written before ledgers existed. */
interface GraphWalBody {
  workspace: string
  ops: CommitRecord['ops']
  ledgers?: LedgerEntry[]
}

class EngineImpl implements Engine {
  readonly catalog = new GraphCatalog()
  readonly cypherEngine: CypherEngine
  readonly sessions: SessionsApi
  readonly sessionManager: SessionManager
  private readonly gate = new VisibilityGate()
  private storage: PersistentStorage | null = null
  private current: EngineState = 'open'
  private checkpointing: Promise<void> | null = null
  private checkpointTail: Promise<void> = Promise.resolve()
  private readonly derived: DerivedIndex[] = []
  readonly ledgers = new LedgerRegistry()
  /** Commit sequence in ephemeral mode (persistent mode uses the WAL's). */
  private localSeq = 0
  readonly temporal: Temporal
  readonly explorer: ExplorerApi
  /** Attached once recovery is done, since attaching builds the index from the recovered graph. */
  seed!: SeedSearch
  readonly memory: MemoryService
  readonly openedAtMs: number
  readonly ref: RefWrites
  readonly stixVersions: StixVersions
  readonly taxiiCollections: TaxiiCollections

  constructor(
    readonly storageMode: StorageMode,
    private readonly options: EngineOptions,
  ) {
    const now = options.now ?? Date.now
    this.openedAtMs = now()
    this.sessionManager = new SessionManager({
      idleTtlMs: options.sessionIdleTtlMs ?? 0,
      now,
      journal: { record: (kind, body) => this.journal(kind, body) },
    })
    this.sessions = new SessionsApi(this.sessionManager)
    this.temporal = new Temporal(
      this.catalog,
      this.sessionManager,
      (kind, body) => this.journal(kind, body),
      options.historyMaxVersions ?? 2_000_000,
      now,
    )
    this.explorer = {
      timeline: (sessionId) => this.temporal.timelineOf(sessionId),
      graph: (sessionId, query = {}) => this.temporal.graph(sessionId, query),
      snapshot: async (sessionId, label = 'snapshot') => {
        await this.gate.enterRead()
        this.gate.exitRead()
        return this.temporal.snapshot(sessionId, this.currentSeq(), label)
      },
    }
    for (const ledger of options.ledgers ?? []) this.ledgers.define(ledger)
    this.memory = new MemoryService({
      transact: (workspaceId, fn, transactOptions) => this.transact(workspaceId, fn, transactOptions),
      readGraph: (workspaceId, fn) => this.readGraph(workspaceId, fn),
      seed: () => this.seed,
      now,
      sessionOpen: (id) => this.sessionManager.has(id) && this.sessionManager.get(id).status !== 'stopped',
      audited: (sessionId, workspaceId, event, input, work, output) =>
        this.audited(sessionId, workspaceId, event, input, work, output),
    })
    for (const ledger of this.memory.ledgers) this.ledgers.define(ledger)
    const legacyStateFile =
      options.storage?.dir === undefined
        ? null
        : join(options.storage.dir, 'runtime', 'opencti-write-state.json')
    this.ref = new RefWrites(this, { legacyStateFile, ...options.ref }, (id) => this.catalog.workspace(id))
    this.ledgers.define(this.ref.state)
    this.stixVersions = new StixVersions(now)
    this.ledgers.define(this.stixVersions)
    this.taxiiCollections = new TaxiiCollections(
      { transact: (workspaceId, fn) => this.transact(workspaceId, fn) },
      this.stixVersions,
    )
    for (const ledger of this.taxiiCollections.ledgers) this.ledgers.define(ledger)
    this.cypherEngine = new CypherEngine(this.catalog, {
      ...(options.cypherBudgets ? { budgets: options.cypherBudgets } : {}),
      beforePublish: (commit, workspaceId, _sequence, context) =>
        this.logCommit(commit, workspaceId, context as PendingDurability | undefined),
    })
  }

  /** Session and audit records share the WAL with graph commits (nothing to do when ephemeral). */
  private journal(kind: string, body: unknown): Promise<void> {
    if (this.storage === null) return Promise.resolve()
    return this.storage.append(kind, body).durable
  }

  /**
   * Called between prepare and publish of a graph write: buffer the WAL line (group commit) and let the
   * write publish at once; the request itself waits for durability before it is acknowledged.
   */
  private currentSeq(): number {
    return this.storage === null ? this.localSeq : this.storage.lastSeq
  }

  /** Synchronous: the commit publishes right after, in the same tick, so no await sits in between. */
  private logCommit(
    commit: CommitRecord,
    workspaceId: string,
    pending: PendingDurability | undefined,
    ledgers: LedgerEntry[] = [],
  ): void {
    const storage = this.storage
    if (storage === null) {
      const seq = ++this.localSeq
      if (commit.ops.length > 0) this.temporal.capture(workspaceId, commit, seq)
      pending?.commits.push({ seq, tx: `tx--${randomUUID()}`, workspace: workspaceId, ops: commit.ops })
      return
    }
    if (this.gate.failed) throw this.gate.failed
    const body: GraphWalBody = { workspace: workspaceId, ops: commit.ops }
    if (ledgers.length > 0) body.ledgers = ledgers
    const appended = storage.append('graph', body)
    if (commit.ops.length > 0) this.temporal.capture(workspaceId, commit, appended.seq)
    pending?.commits.push({ seq: appended.seq, tx: appended.tx, workspace: workspaceId, ops: commit.ops })
    // The log tells the gate per batch (see open()); the promise is shared by the batch's records.
    this.gate.published(appended.seq)
    pending?.durables.push(appended.durable)
  }

  async open(): Promise<void> {
    this.ledgers.seal()
    const s = this.options.storage
    if (this.storageMode !== 'persistent' || s === undefined) return
    if (s.dir === undefined)
      throw new EngineError('STORAGE_DIR_REQUIRED', 'persistent storage needs a directory', 'invalid')
    const loader = new GraphImageLoader(this.catalog, (workspace, kind) =>
      kind === 'node'
        ? this.temporal.history(workspace).nodeCreated
        : this.temporal.history(workspace).relCreated,
    )
    let imageDone = false
    const finishImage = () => {
      if (!imageDone) {
        loader.finish()
        this.temporal.finishLoad()
      }
      imageDone = true
    }
    this.storage = await PersistentStorage.open(
      {
        dir: s.dir,
        requireFsync: s.requireFsync ?? true,
        strictRecovery: s.strictRecovery ?? true,
        version: SERVICE_VERSION,
        ...(s.segmentBytes === undefined ? {} : { segmentBytes: s.segmentBytes }),
        ...(s.checkpointEveryBytes === undefined ? {} : { checkpointEveryBytes: s.checkpointEveryBytes }),
        ...(s.checkpointEveryMs === undefined ? {} : { checkpointEveryMs: s.checkpointEveryMs }),
        ...(this.options.now ? { now: this.options.now } : {}),
        ...(this.options.onWarning ? { warn: this.options.onWarning } : {}),
      },
      {
        loadCheckpointLine: (line) => {
          const parsed = JSON.parse(line) as
            | GraphImageLine
            | TemporalLine
            | { kind: 'session' | 'audit'; body: unknown }
            | { kind: 'ledger'; ledger: string; entry: unknown }
          if (parsed.kind === 'ledger') this.ledgers.apply([parsed])
          else if (
            parsed.kind === 'graph_batch' ||
            parsed.kind === 'graph_nodes' ||
            parsed.kind === 'graph_rels' ||
            parsed.kind === 'graph_counters'
          )
            loader.add(parsed)
          else if (parsed.kind === 'history' || parsed.kind === 'boundary') this.temporal.loadLine(parsed)
          else this.sessionManager.applyRecord(parsed.kind, parsed.body)
        },
        applyRecord: (record: WalRecord) => {
          finishImage()
          this.applyWalRecord(record)
        },
      },
    )
    finishImage()
    this.storage.listen({
      durable: (seq) => this.gate.durable(seq),
      failed: (error) => this.gate.logFailed(error),
    })
  }

  private applyWalRecord(record: WalRecord): void {
    if (record.kind === 'graph') {
      const body = record.body as GraphWalBody
      if (body.ops.length > 0) {
        const store = this.catalog.workspace(body.workspace)
        this.temporal.capture(body.workspace, { ops: body.ops }, record.seq)
        store.applyCommit({ ops: body.ops }, store.sequence + 1)
      }
      if (body.ledgers !== undefined) this.ledgers.apply(body.ledgers)
    } else if (record.kind === 'boundary')
      this.temporal.applyBoundary(record.body as Parameters<Temporal['applyBoundary']>[0])
    else this.sessionManager.applyRecord(record.kind, record.body)
  }

  state(): EngineState {
    return this.current
  }

  isReady(): boolean {
    return (
      this.current === 'open' && this.gate.failed === null && this.storage?.failed == null && this.ref.ready()
    )
  }

  durability(): DurabilityReport {
    if (this.storage === null) return ephemeralDurability()
    const report = this.storage.durability()
    return this.gate.failed ? { ...report, recovery: { ...report.recovery, outcome: 'unavailable' } } : report
  }

  recoveryFacts() {
    const r = this.storage?.recovery
    return {
      replayed_transactions: r?.replayedTransactions ?? 0,
      checkpoint_records: r?.checkpointRecords ?? 0,
      recovery_path: r?.recoveryPath ?? null,
      elapsed_ms: r?.elapsedMs ?? 0,
      warnings: r?.warnings ?? [],
    }
  }

  private assertOpen(): void {
    if (this.current !== 'open') throw new EngineError('ENGINE_CLOSED', 'the engine is closed', 'unavailable')
    if (this.gate.failed) throw this.gate.failed
  }

  private isWrite(call: CypherCall): boolean {
    if (call.mode === 'write') return true
    if (call.mode !== 'auto') return false
    try {
      return this.cypherEngine.plan(call.query).isWrite
    } catch {
      return false // the run reports the compile error
    }
  }

  async cypher(input: CypherCall): Promise<CypherResult> {
    this.assertOpen()
    const call = checkCallShape(input)
    const workspaceId = call.workspaceId ?? DEFAULT_WORKSPACE_ID
    // Without a session there is nothing to audit: skip building the audit input for every request.
    if (call.sessionId === undefined) return await this.runCypher(call, workspaceId)
    return this.audited(
      call.sessionId,
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
      () => this.runCypher(call, workspaceId),
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

  /**
   * Runs `work` as one request of a session, when a session is named: its state machine moves, and the
   * session log gets a `<event>_audit_input` / `_output` pair (Cypher and memory operations share this).
   */
  private async audited<T>(
    sessionId: string | undefined,
    workspaceId: string,
    event: string,
    input: Record<string, unknown>,
    work: () => Promise<T>,
    output: (value: T) => Record<string, unknown>,
  ): Promise<T> {
    if (sessionId === undefined) return work()
    const auditId = randomUUID()
    this.sessionManager.beginRequest(sessionId)
    await this.audit(sessionId, workspaceId, `${event}_audit_input`, auditId, input)
    const started = performance.now()
    let value: T
    try {
      value = await work()
    } catch (error) {
      this.sessionManager.endRequest(sessionId, 'fault')
      await this.audit(sessionId, workspaceId, `${event}_audit_output`, auditId, {
        status: 'Error',
        error_code: isEngineError(error) ? error.code : 'INTERNAL',
        error_message: isEngineError(error) ? error.message : 'internal error',
        elapsed_ms: Math.round(performance.now() - started),
      }).catch(() => {})
      throw error
    }
    this.sessionManager.endRequest(sessionId, 'ok')
    await this.audit(sessionId, workspaceId, `${event}_audit_output`, auditId, {
      ...output(value),
      elapsed_ms: Math.round(performance.now() - started),
    })
    return value
  }

  private async runCypher(call: CypherCall, workspaceId: string): Promise<CypherResult> {
    // (the session id rides along in `call` so committed writes become timeshots)
    const request: CypherRequest = { query: call.query, mode: call.mode, workspaceId }
    if (call.params) request.params = call.params
    const options: RunOptions = {}
    if (call.signal) options.signal = call.signal
    if (call.deadline) options.deadline = call.deadline
    if (call.mode === 'validate') return this.cypherEngine.run(request, options)
    if (!this.isWrite(call)) {
      await this.gate.enterRead()
      try {
        // Reads execute synchronously inside run(), on a version with no non-durable commit in it.
        return await this.cypherEngine.run(request, options)
      } finally {
        this.gate.exitRead()
      }
    }
    const entered = this.gate.enterWrite()
    if (entered !== undefined) await entered
    const pending: PendingDurability = { durables: [], commits: [] }
    options.context = pending
    const { result } = await this.cypherEngine.execute(request, options)
    await this.afterWrite(pending, call.sessionId, undefined)
    return result
  }

  /** Derived indexes, durability, then the session timeshot: everything a write does after it publishes. */
  private async afterWrite(
    pending: PendingDurability,
    sessionId: string | undefined,
    label: string | undefined,
  ): Promise<void> {
    for (const c of pending.commits) {
      if (c.ops.length === 0) continue
      const store = this.catalog.workspace(c.workspace)
      for (const index of this.derived) index.onCommit(c.workspace, store, c.ops)
    }
    const durables = pending.durables
    try {
      // A batch's records share one promise, so there is mostly one to wait for.
      if (durables.length === 1) await durables[0]
      else if (durables.length > 1) await Promise.all(durables)
    } catch (error) {
      throw isEngineError(error)
        ? error
        : new EngineError(
            'DURABILITY_FAILED',
            `the write could not be made durable: ${(error as Error).message}`,
            'unavailable',
          )
    }
    // Every committed write made under a session is a timeshot of its timeline.
    if (sessionId !== undefined) {
      for (const c of pending.commits) {
        if (c.ops.length === 0) continue
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
    this.maybeCheckpoint()
  }

  async transact<T>(
    workspaceId: string,
    fn: (tx: Transaction, store: GraphStore, ledger: LedgerWriter) => T,
    options: TransactOptions = {},
  ): Promise<TransactResult<T>> {
    this.assertOpen()
    if (options.sessionId !== undefined) this.sessionManager.get(options.sessionId)
    await this.gate.enterWrite()
    const store = this.catalog.workspace(workspaceId)
    const pending: PendingDurability = { durables: [], commits: [] }
    const value = await store.exclusive(async () => {
      const tx = store.begin()
      const { writer, entries } = this.ledgers.collector()
      const value = fn(tx, store, writer)
      const commit = tx.prepare()
      if (commit.ops.length > 0 || entries.length > 0) {
        this.logCommit(commit, workspaceId, pending, entries)
        if (commit.ops.length > 0) store.publish(commit, store.sequence + 1)
        this.ledgers.apply(entries)
      }
      return value
    })
    const durable = this.afterWrite(pending, options.sessionId, options.label)
    const last = pending.commits.at(-1)
    const result = { value, sequence: last?.seq ?? null, transaction_id: last?.tx ?? null }
    if (options.deferDurability !== true) {
      await durable
      return result
    }
    durable.catch(() => {})
    return { ...result, durable }
  }

  /** Test hook: the next WAL write fails as a broken disk would (persistent mode only). */
  injectStorageFailure(error: Error): void {
    if (this.storage === null) throw new Error('injectStorageFailure needs persistent storage')
    this.storage.injectFailure(error)
  }

  async readGraph<T>(workspaceId: string, fn: (store: GraphStore) => T): Promise<T> {
    this.assertOpen()
    await this.gate.enterRead()
    try {
      return fn(this.catalog.workspace(workspaceId))
    } finally {
      this.gate.exitRead()
    }
  }

  async readAt<T>(workspaceId: string, snapshotId: string, fn: (reader: GraphReader) => T): Promise<T> {
    if (snapshotId === 'snapshot--current') return this.readGraph(workspaceId, fn)
    const boundary = this.temporal.timeline.get(snapshotId)
    const history = this.temporal.history(workspaceId)
    if (
      boundary === undefined ||
      boundary.workspace_id !== workspaceId ||
      boundary.sequence < history.floorSeq
    ) {
      throw new EngineError(
        'SNAPSHOT_NOT_FOUND',
        `no snapshot ${snapshotId} of workspace ${workspaceId} in the retained history`,
        'not_found',
      )
    }
    return this.readGraph(workspaceId, (store) => fn(new AsOfReader(store, history, boundary.sequence)))
  }

  registerDerivedIndex(index: DerivedIndex): void {
    this.derived.push(index)
    index.rebuild(new Map(this.catalog.workspaceIds().map((id) => [id, this.catalog.workspace(id)])))
  }

  currentSequence(): number {
    return this.currentSeq()
  }

  read(query: string, params?: Record<string, unknown>, options: CallOptions = {}): Promise<CypherResult> {
    return this.cypher({ ...options, query, params, mode: 'read', forcedMode: 'read' })
  }

  write(query: string, params?: Record<string, unknown>, options: CallOptions = {}): Promise<CypherResult> {
    return this.cypher({ ...options, query, params, mode: 'write', forcedMode: 'write' })
  }

  private async audit(
    sessionId: string,
    workspaceId: string,
    event: string,
    auditEventId: string,
    fields: Record<string, unknown>,
  ): Promise<void> {
    await this.sessionManager.recordAudit({
      timestamp: (this.options.now ?? Date.now)(),
      level: 'info',
      target: 'service::audit',
      fields: {
        message: event.replace(/_/g, ' '),
        event,
        audit_event_id: auditEventId,
        session_id: sessionId,
        workspace_id: workspaceId,
        ...fields,
      },
    })
  }

  private maybeCheckpoint(): void {
    if (this.storage?.shouldCheckpoint() && this.checkpointing === null) {
      this.checkpointing = this.checkpoint().finally(() => {
        this.checkpointing = null
      })
      this.checkpointing.catch((error: Error) =>
        this.options.onWarning?.(`checkpoint failed: ${error.message}`),
      )
    }
  }

  /** One checkpoint at a time (an explicit call may meet the automatic one). */
  checkpoint(): Promise<void> {
    const run = this.checkpointTail.then(() => this.writeCheckpoint())
    this.checkpointTail = run.catch(() => {})
    return run
  }

  /**
   * Writes the image at the log's last sequence S without stopping the engine. Everything but the graph is
   * encoded first, in one go (session and audit records are logged without waiting for the gate, so they may
   * change meanwhile); the graph is then written in slices between event-loop turns while this holds the visibility
   * gate's read side, so reads go on and graph writers wait until it is done. Records logged meanwhile
   * are above S and replay over the image.
   */
  private async writeCheckpoint(): Promise<void> {
    const storage = this.storage
    if (storage === null) return
    await this.gate.enterRead()
    try {
      const sequence = storage.lastSeq
      const rest = [...this.stateLines()]
      const lines = function* (graph: Iterable<string>) {
        yield* graph
        yield* rest
      }
      await storage.checkpoint(sequence, lines(this.graphLines()), () => new Promise((r) => setImmediate(r)))
    } finally {
      this.gate.exitRead()
    }
  }

  private *graphLines(): Iterable<string> {
    for (const line of graphImage(this.catalog, (workspace, kind, id) => {
      const history = this.temporal.history(workspace)
      return (kind === 'node' ? history.nodeCreated : history.relCreated).get(id)
    }))
      yield JSON.stringify(line)
  }

  private *stateLines(): Iterable<string> {
    for (const record of this.sessionManager.checkpointRecords()) yield JSON.stringify(record)
    for (const line of this.temporal.imageLines()) yield JSON.stringify(line)
    for (const line of this.ledgers.imageLines()) yield JSON.stringify(line)
  }

  async close(): Promise<void> {
    if (this.current !== 'open') return
    this.current = 'closing'
    this.sessionManager.close()
    this.ref.close()
    try {
      await this.checkpointing
      if (this.storage !== null && this.gate.failed === null && this.storage.failed === null) {
        await this.checkpoint()
      }
    } finally {
      await this.storage?.close()
      this.current = 'closed'
    }
  }
}

export async function openEngine(options: EngineOptions = {}): Promise<Engine> {
  const mode = options.storage?.mode ?? 'ephemeral'
  const engine = new EngineImpl(mode, options)
  await engine.open()
  engine.seed = SeedSearch.attach(engine)
  await engine.ref.start()
  return engine
}
