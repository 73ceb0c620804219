import type { EngineError } from '../errors.js'
import type { BackupSource } from './backup/backup-source.js'
import type { CheckpointPiece } from './checkpoint-encoder.js'
import type { DurabilityReport, RecoveryReport } from './durability.js'
import type { PayloadFile } from './payload-file.js'
import type { WalRecord } from './wal-record.js'
import type { Appended, WalListener } from './wal-writer.js'

export interface ReplaySink {
  /** One record line of a checkpoint image, as the engine wrote it. */
  loadCheckpointLine(line: string): void
  /** The payload file the checkpoint's references point into, before its first line (file store only). */
  usePayloads?(file: PayloadFile): void
  /** One committed transaction from the write-ahead log, in sequence order. */
  applyRecord(record: WalRecord): void
}

export interface RecoveryFigures {
  report: RecoveryReport
  replayedTransactions: number
  checkpointRecords: number
  recoveryPath: 'checkpoint_and_bounded_replay' | 'full_replay'
  warnings: string[]
  elapsedMs: number
}

/**
 * Log growth that starts a checkpoint by default. A checkpoint rewrites the whole image, so a small amount
 * makes a young store pay for it often in the middle of a bulk load (64 MiB fired once or twice in five
 * seconds of reference bulk writes, each time walking the whole image). 256 MiB is what Neo4j rotates its
 * transaction log at (PostgreSQL's max_wal_size is 1 GiB); the log replays at ~70 MB/s, so a crash costs at
 * most ~4 s of replay above the image.
 */
export const DEFAULT_CHECKPOINT_EVERY_BYTES = 256 * 1024 * 1024

/**
 * Log growth that starts the next checkpoint: the setting, or half the current image when that is more.
 * A fixed amount made a growing store write its whole image again every fixed amount of log: quadratic work over
 * a bulk load (2 million objects imported at a third of the 200k rate). Growing with the image keeps the
 * checkpoints of a load geometric (their total ~3x the final image) and the replay after a crash at most
 * half an image of log. Both stores use it: the file store with its checkpoint file's size, PostgreSQL with
 * the characters of its image's lines.
 */
export const checkpointAfterBytes = (settingBytes: number, imageBytes: number): number =>
  Math.max(settingBytes, Math.floor(imageBytes * 0.5))

/** Where the durable state lives and what this process may do with it, for /health and /metrics. */
export interface ReplicationReport {
  backend: 'file' | 'postgres'
  /** primary writes; follower serves reads and tails the log; fenced lost ownership and refuses writes. */
  role: 'primary' | 'follower' | 'fenced'
  /** The ownership epoch this process writes under (PostgreSQL), or null. */
  epoch: number | null
  /** Newest sequence applied to this process's graph. */
  applied_sequence: number
  /** Newest sequence the log holds, as last seen (a follower's view of the primary). */
  log_sequence: number
  lag_sequences: number
  lag_ms: number
  /** Why writes are refused here (follower, fenced), or null. */
  reason: string | null
  primary_url: string | null
}

/** What a follower's store hands the engine as the log grows. */
export interface TailListener {
  /** Records above the applied sequence, in order, already durable on the primary. */
  apply(records: readonly WalRecord[]): void
  /** The log no longer reaches back to the applied sequence (retention passed it): rebuild from scratch. */
  rebase(): Promise<void>
  /** This follower took over as primary; writes are accepted from now on. */
  promoted(): void
}

/**
 * The durable store port: the kernel appends commit records (group commit, acknowledged once durable),
 * reads them back at recovery and after a failure, writes checkpoints, and holds single ownership. The file
 * directory (PersistentStorage) and PostgreSQL (PostgresStorage) are its two implementations.
 */
export interface DurableStore {
  readonly recovery: RecoveryFigures
  /** Where a checkpoint moves long values (the file store; PostgreSQL keeps every value resident). */
  readonly payloads?: PayloadFile
  /** The newest sequence of the log; after a failure, the last durable one. */
  readonly lastSeq: number
  readonly durableSeq: number
  readonly failed: Error | null
  append(kind: string, body: unknown, tx?: string): Appended
  listen(listener: WalListener): void
  /**
   * After a log failure: reads what is durable (asynchronously, where the store must) and returns a
   * synchronous step that hands it to a sink and returns its sequence, so no reader sees a half-built state.
   */
  prepareReload(): Promise<(sink: ReplaySink) => number>
  resumeLog(): Promise<void>
  shouldCheckpoint(): boolean
  checkpoint(sequence: number, lines: Iterable<CheckpointPiece>, pause?: () => Promise<void>): Promise<void>
  drain(): Promise<void>
  durability(): DurabilityReport
  replication(): ReplicationReport
  /** Null when this process may write; otherwise the error every write gets (follower, fenced). */
  writeRefusal(): EngineError | null
  /**
   * A consistent image at the durable sequence for an online backup, captured without pausing writes; the
   * caller streams it and releases it.
   */
  backupSource(): BackupSource | Promise<BackupSource>
  /** Followers only: starts tailing the log into `listener`. */
  follow(listener: TailListener): void
  close(): Promise<void>
  injectFailure(error: Error): void
  clearInjectedFailure(): void
}
