import type { CsvImportPolicy, CypherBudgets, CypherMode, RowForm } from '../cypher/index.js'
import type { CommitRecord } from '../graph/commit.js'
import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { LedgerWriter } from './ledger.js'

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
  /** File store only: keep every sealed WAL segment here for point-in-time recovery. */
  walArchiveDir?: string
  /**
   * Write a checkpoint when the engine closes (default true). A store opened only to check that it recovers
   * (restore, verify) has nothing to add to its image and closes without one.
   */
  checkpointOnClose?: boolean
  /** The durable store in PostgreSQL instead of `dir` (write-ahead log, checkpoints, ownership). */
  postgres?: PostgresStoreOptions
  /**
   * File store only: a checkpoint moves string values of at least this many UTF-8 bytes to the payload file
   * (SERVICE_STORAGE_PAYLOAD_MIN_BYTES, default 64); 0 keeps every value resident.
   */
  payloadMinBytes?: number
  /** File store only: bound of the payload read cache in bytes (SERVICE_STORAGE_PAYLOAD_CACHE_BYTES). */
  payloadCacheBytes?: number
}

export interface PostgresStoreOptions {
  url: string
  /** primary writes; follower serves reads and tails the log. */
  role: 'primary' | 'follower'
  /** auto: a follower takes over once the primary's ownership session ends. */
  promote: 'auto' | 'off'
  /** The primary's address, named in a follower's write refusal. */
  primaryUrl?: string | null
  /** How long a silent primary keeps ownership before a follower may take over. */
  leaseMs?: number
  /** A follower's poll interval (notifications wake it sooner). */
  pollMs?: number
}

/** What the kernel itself needs: storage, Cypher budgets, time and history bounds. No feature is named here. */
export interface KernelOptions {
  storage?: StorageOptions
  cypherBudgets?: Partial<CypherBudgets>
  /** Milliseconds since the epoch; injectable so tests control time. */
  now?: () => number
  /** Receives recovery warnings (torn tails truncated, fallbacks taken). */
  onWarning?: (message: string) => void
  /** Bound on retained record versions (before-images); older history is dropped past it. */
  historyMaxVersions?: number
  /** Where Cypher's LOAD CSV may read (a directory, allowed URL prefixes); nowhere when absent. */
  cypherImport?: CsvImportPolicy
  /** Each committed batch of a `CALL { … } IN TRANSACTIONS` write (the request log's progress lines). */
  onCypherBatch?: (progress: CypherBatchProgress) => void
}

/** A committed batch: its number, the input rows committed so far, the time since the run began. */
export interface CypherBatchProgress {
  workspaceId: string
  batch: number
  rows: number
  elapsedMs: number
  /** The request's correlation id, when it gave one. */
  correlationId: string | undefined
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
  /** `detached`: result rows hold typed values (nodes, relationships, paths, exact integers), not JSON. */
  rows?: RowForm | undefined
}

export type CallOptions = Omit<CypherCall, 'query' | 'params' | 'mode'>

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

export type TransactFn<T> = (tx: Transaction, store: GraphStore, ledger: LedgerWriter) => T

/**
 * Graph access as features receive it: atomic writes through the commit pipeline and reads of the published
 * graph. A feature asks for this port, never for the whole engine.
 */
export interface GraphAccess {
  readonly storageMode: StorageMode
  state(): EngineState
  /**
   * Runs `fn` against a write transaction of one workspace and commits what it did atomically (WAL + fsync,
   * visibility gate, record history, commit hooks). Ledger entries written through `ledger` commit in the same
   * WAL record. A throw commits nothing. Resolves once durable; a failed durability gate rejects with
   * DURABILITY_FAILED.
   */
  transact<T>(workspaceId: string, fn: TransactFn<T>, options?: TransactOptions): Promise<TransactResult<T>>
  /**
   * `transact` for a large write done in slices: `fn` may wait (for the next event-loop turn) between parts of
   * its work; the workspace's write turn is held meanwhile, and readers go on reading the published graph.
   */
  transactInSlices<T>(
    workspaceId: string,
    fn: TransactFn<Promise<T>>,
    options?: TransactOptions,
  ): Promise<TransactResult<T>>
  /** Runs `fn` synchronously on the published graph of a workspace, with no non-durable commit visible. */
  readGraph<T>(workspaceId: string, fn: (store: GraphStore) => T): Promise<T>
}

/** A structure derived from the graph (full-text index, vectors, …), kept current by the kernel. */
export interface DerivedIndex {
  readonly name: string
  /** Build from scratch from every workspace (at registration and after recovery). */
  rebuild(workspaces: ReadonlyMap<string, GraphStore>): void
  /** After a commit is published: `ops` are its redo ops, `store` the workspace graph as it now is. */
  onCommit(workspaceId: string, store: GraphStore, ops: CommitRecord['ops']): void
}

/**
 * State a feature keeps in the write-ahead log beside graph commits (sessions, audit, timeline boundaries):
 * the kernel replays its records and checkpoint lines at recovery and writes its image into checkpoints.
 * Registered before the kernel opens, so its records replay.
 */
export interface JournaledState {
  /** WAL record kinds this state owns (never `graph`). */
  readonly recordKinds: readonly string[]
  /** Checkpoint line kinds this state owns. */
  readonly lineKinds: readonly string[]
  applyRecord(kind: string, body: unknown): void
  loadLine(line: { kind: string }): void
  /** Checkpoint lines, each a JSON object with a `kind` among `lineKinds`. */
  imageLines(): Iterable<{ kind: string }>
  /** Back to empty, before the state is rebuilt from the durable log after a storage failure. */
  reset(): void
}

/** A published, non-empty commit as commit hooks see it. */
export interface CommittedWrite {
  seq: number
  tx: string
  workspace: string
}

/** Runs after a write is durable (e.g. a session timeshot); `sessionId` and `label` are the caller's. */
export type CommitHook = (
  commits: readonly CommittedWrite[],
  sessionId: string | undefined,
  label: string | undefined,
) => Promise<void> | undefined

/** The payload file's size and its read cache's figures, for metrics (bytes; hits and misses since open). */
export interface PayloadFigures {
  file_bytes: number
  cache_bytes: number
  cache_limit_bytes: number
  cache_hits: number
  cache_misses: number
}
