import type { CypherResult } from '../cypher/index.js'
import type { GraphQuery, Temporal } from '../explorer/temporal.js'
import type { DomainGates } from '../gates/domain-gates.js'
import type { GraphStore } from '../graph/store.js'
import type { GraphReader } from '../graph/types.js'
import type { BeginOptions, ExplicitTransaction } from '../kernel/explicit-transaction.js'
import type { Ledger } from '../kernel/ledger.js'
import type { StorageFaultReport } from '../kernel/storage-fault-recovery.js'
import type {
  CallOptions,
  CypherCall,
  DerivedIndex,
  EngineState,
  GraphAccess,
  KernelOptions,
  PayloadFigures,
  StorageMode,
  TransactFn,
  TransactOptions,
  TransactResult,
} from '../kernel/types.js'
import type { MemoryApi } from '../memory/service.js'
import type { RefOptions } from '../ref/write-options.js'
import type { RefWrites } from '../ref/writes.js'
import type { SeedSearch } from '../seed/search.js'
import type { SessionsApi } from '../sessions/sessions-api.js'
import type { StixService } from '../stix/service.js'
import type { StixVersions } from '../stix/versions.js'
import type { OnlineBackup } from '../storage/backup/online-backup.js'
import type { DurabilityReport } from '../storage/durability.js'
import type { ReplicationReport } from '../storage/durable-store.js'
import type { TaxiiCollections } from '../taxii/collections.js'

export interface EngineOptions extends KernelOptions {
  /** Idle time-to-live of sessions in ms; 0 disables. */
  sessionIdleTtlMs?: number
  /** Ledgers of an embedding application, defined before recovery so their entries replay. */
  ledgers?: Ledger[]
  /** Reference-platform writes: bounds and the reference to project to (none: a service-only store). */
  ref?: RefOptions
}

export interface ExplorerApi {
  timeline(sessionId: string): ReturnType<Temporal['timelineOf']>
  graph(sessionId: string, query?: GraphQuery): ReturnType<Temporal['graph']>
  /** Pins the session's workspace graph as it is now under a name; returns the boundary. */
  snapshot(sessionId: string, label?: string): Promise<ReturnType<Temporal['timeline']['add']>>
}

/**
 * The embedded API: the kernel's graph access plus every feature. The HTTP server is one door onto it; an
 * application can hold it in-process, and gets the same rules (gates, auditing, limits).
 */
export interface Engine extends GraphAccess {
  readonly storageMode: StorageMode
  readonly openedAtMs: number
  state(): EngineState
  /** True once recovery finished and the engine accepts work. */
  isReady(): boolean
  durability(): DurabilityReport
  /** The payload file and its bounded read cache (file store); null when every value stays resident. */
  payloads(): PayloadFigures | null
  /** Storage faults: whether writes are suspended and why, recoveries in place, checkpoint failures. */
  storageFaults(): StorageFaultReport
  /** Where the durable state lives (file or PostgreSQL), this process's role and a follower's lag; null when ephemeral. */
  replication(): ReplicationReport | null
  /**
   * An online backup (docs/operations.md): a tar stream of the store at one durable sequence, taken while
   * writes go on; one at a time (BACKUP_IN_PROGRESS).
   */
  backup(): Promise<OnlineBackup>
  /** Read-your-writes: true once commit `sequence` is visible here, false when `timeoutMs` passes first. */
  waitForSequence(sequence: number, timeoutMs: number): Promise<boolean>
  /** The newest durable commit sequence (what a write's answer names for read-your-writes). */
  durableSequence(): number
  /** Runs a Cypher request in the given mode (read, write, validate or auto). */
  cypher(call: CypherCall): Promise<CypherResult>
  /**
   * An explicit (multi-statement) transaction on one workspace: statements see its own writes; `commit`
   * applies them atomically and durably (one WAL record), `rollback` or its idle/total timeout discards them.
   */
  beginTransaction(options: BeginOptions): ExplicitTransaction
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
  /** STIX 2.1 import, validation and deterministic export. */
  readonly stix: StixService
  /** Versions of the STIX objects of every workspace and the date each was added (every import records). */
  readonly stixVersions: StixVersions
  /** TAXII 2.1 collection ids, one per published workspace, kept durably. */
  readonly taxiiCollections: TaxiiCollections
  /** Domain gates of the deployment; the host wires the provider host in with `domainGates.use(port)`. */
  readonly domainGates: DomainGates
  transact<T>(workspaceId: string, fn: TransactFn<T>, options?: TransactOptions): Promise<TransactResult<T>>
  transactInSlices<T>(
    workspaceId: string,
    fn: TransactFn<Promise<T>>,
    options?: TransactOptions,
  ): Promise<TransactResult<T>>
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
