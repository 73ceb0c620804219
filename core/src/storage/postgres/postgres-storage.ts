import type { EngineError } from '../../errors.js'
import type { BackupSource } from '../backup/backup-source.js'
import { type CheckpointPiece, SLICE_POINT } from '../checkpoint-encoder.js'
import { columnLineText } from '../column-line.js'
import type { DurabilityReport } from '../durability.js'
import {
  checkpointAfterBytes,
  DEFAULT_CHECKPOINT_EVERY_BYTES,
  type DurableStore,
  type RecoveryFigures,
  type ReplaySink,
  type ReplicationReport,
  type TailListener,
} from '../durable-store.js'
import type { WalRecord } from '../wal-record.js'
import type { Appended, WalListener } from '../wal-writer.js'
import { capturePgStore } from './pg-backup.js'
import { readPgCheckpoint, writePgCheckpoint } from './pg-checkpoint.js'
import { connectClient, dropClient, type PgClient } from './pg-connect.js'
import { PgStoreErrors } from './pg-errors.js'
import { FollowerRole } from './pg-follower-role.js'
import { readPgLog } from './pg-log-reader.js'
import { OwnerSessions } from './pg-owner.js'
import { PrimaryOwnership } from './pg-ownership.js'
import { PgWalWriter } from './pg-wal-writer.js'
import { ensureSchema } from './schema.js'

export interface PostgresStorageOptions {
  url: string
  role: 'primary' | 'follower'
  /** auto: a follower takes over once the primary's ownership session has ended. */
  promote: 'auto' | 'off'
  /** Where writes go, named in a follower's refusal. */
  primaryUrl: string | null
  requireFsync: boolean
  strictRecovery: boolean
  /** How long a silent primary keeps ownership (its session's idle timeout). */
  leaseMs?: number
  pollMs?: number
  checkpointEveryBytes?: number
  checkpointEveryMs?: number
  now?: () => number
  warn?: (message: string) => void
}

/**
 * The durable store in PostgreSQL: the write-ahead log as rows (group commit, acknowledged after COMMIT),
 * checkpoints as chunked images, and single ownership as a session advisory lock plus an epoch that fences
 * every append. A follower recovers the same way, then tails the log and may take over.
 */
export class PostgresStorage implements DurableStore {
  private writer: PgWalWriter | null = null
  /** The lock, the epoch every append is fenced by, and the role they give this server (pg-ownership.ts). */
  private readonly ownership: PrimaryOwnership
  private aux: PgClient | null = null
  private listener: WalListener | null = null
  /** A follower's tailing and promotion (pg-follower-role.ts), once it follows. */
  private follower: FollowerRole | null = null
  private applied = 0
  private checkpointSeq: number | null = null
  private checkpointAtMs: number | null = null
  private intervalStartMs: number
  private baseBytes = 0
  private bytesAtCheckpoint = 0
  /** Size of the current image (characters of its lines): checkpoints come after half of it in log. */
  private imageChars = 0
  private injected: Error | null = null
  private readonly opts: Required<Omit<PostgresStorageOptions, 'warn'>> & Pick<PostgresStorageOptions, 'warn'>

  private constructor(
    options: PostgresStorageOptions,
    readonly recovery: RecoveryFigures,
  ) {
    this.opts = {
      leaseMs: 10_000,
      pollMs: 200,
      checkpointEveryBytes: DEFAULT_CHECKPOINT_EVERY_BYTES,
      checkpointEveryMs: 10 * 60 * 1000,
      now: Date.now,
      ...options,
    }
    this.ownership = new PrimaryOwnership(
      { role: options.role, leaseMs: this.opts.leaseMs, primaryUrl: options.primaryUrl, warn: options.warn },
      {
        writing: () => this.writer !== null,
        failWriter: (error) => this.writer?.injectFailure(error),
      },
      (lost) => new OwnerSessions(this.opts.url, this.opts.leaseMs, lost),
    )
    this.intervalStartMs = this.opts.now()
  }

  static async open(options: PostgresStorageOptions, sink: ReplaySink): Promise<PostgresStorage> {
    const started = performance.now()
    const storage = new PostgresStorage(options, {
      report: {
        outcome: 'recovered',
        manifest_validated: true,
        required_components_validated: true,
        catalog_recovered: true,
        adjacency_storage_recovered: true,
        warning_count: 0,
        derived_state_rebuilt: true,
      },
      replayedTransactions: 0,
      checkpointRecords: 0,
      recoveryPath: 'full_replay',
      warnings: [],
      elapsedMs: 0,
    })
    try {
      const aux = await storage.auxClient()
      await ensureSchema(aux)
      if (options.role === 'primary' || options.promote === 'auto') await storage.ownership.openSession()
      if (options.role === 'primary') await storage.ownership.claim()
      const checkpoint = await readPgCheckpoint(aux, (line) => sink.loadCheckpointLine(line))
      const afterSeq = checkpoint?.sequence ?? 0
      const read = await readPgLog(aux, afterSeq, (record) => sink.applyRecord(record))
      if (read.gap) {
        throw PgStoreErrors.recoveryFailed(
          `the write-ahead log in PostgreSQL does not continue from sequence ${afterSeq} (rows are missing)`,
        )
      }
      storage.applied = read.lastSeq
      storage.baseBytes = read.bytes
      if (checkpoint !== null) {
        storage.checkpointSeq = checkpoint.sequence
        storage.checkpointAtMs = checkpoint.createdAtMs
        storage.imageChars = checkpoint.chars
      }
      if (options.role === 'primary') await storage.startWriter(read.lastSeq)
      Object.assign(storage.recovery, {
        replayedTransactions: read.records,
        checkpointRecords: checkpoint?.records ?? 0,
        recoveryPath: checkpoint === null ? 'full_replay' : 'checkpoint_and_bounded_replay',
        elapsedMs: Math.round(performance.now() - started),
      })
      return storage
    } catch (error) {
      storage.shutdown()
      throw error
    }
  }

  private async auxClient(): Promise<PgClient> {
    if (this.aux !== null) return this.aux
    const client = await connectClient(this.opts.url, 'service-store', () => {
      if (this.aux === client) this.aux = null
      dropClient(client)
    })
    this.aux = client
    return client
  }

  private async startWriter(lastSeq: number): Promise<void> {
    const epoch = this.ownership.writeEpoch
    if (epoch === null) throw new Error('no ownership epoch to write under')
    const client = await connectClient(this.opts.url, 'service-wal', (error) =>
      this.writer?.injectFailure(error),
    )
    // Without require_fsync a commit returns before PostgreSQL flushed its own log, as the file log skips fsync.
    if (!this.opts.requireFsync) await client.query('SET synchronous_commit = off')
    const writer = new PgWalWriter(client, epoch, lastSeq, this.opts.now)
    writer.listener = this.writerListener()
    this.writer = writer
    this.writerClient = client
  }

  private writerClient: PgClient | null = null

  private writerListener(): WalListener {
    return {
      durable: (seq) => this.listener?.durable(seq),
      failed: (error) => {
        this.ownership.writerFailed(error)
        this.listener?.failed(error)
      },
    }
  }

  get lastSeq(): number {
    const w = this.writer
    if (w === null) return this.applied
    return w.failed === null ? w.lastSeq : w.durableSeq
  }

  get durableSeq(): number {
    return this.writer?.durableSeq ?? this.applied
  }

  get failed(): Error | null {
    return this.writer?.failed ?? null
  }

  append(kind: string, body: unknown, tx?: string): Appended {
    const refusal = this.writeRefusal()
    if (refusal !== null) throw refusal
    return this.writer!.append(kind, body, tx)
  }

  listen(listener: WalListener): void {
    this.listener = listener
  }

  /** A snapshot of the tables in the file store's layout (pg-backup.ts), from a primary or a follower. */
  backupSource(): Promise<BackupSource> {
    return capturePgStore(this.opts.url)
  }

  writeRefusal(): EngineError | null {
    return this.ownership.refusal()
  }

  async prepareReload(): Promise<(sink: ReplaySink) => number> {
    if (this.ownership.role === 'primary') {
      try {
        await this.ownership.renew()
      } catch (error) {
        // A fenced server still reloads (reads go on); any other failure waits for the database.
        if (!this.ownership.isFenced()) throw error
      }
    }
    const client = await this.auxClient()
    const lines: string[] = []
    const records: WalRecord[] = []
    const checkpoint = await readPgCheckpoint(client, (line) => lines.push(line))
    const read = await readPgLog(client, checkpoint?.sequence ?? 0, (record) => records.push(record))
    if (read.gap)
      throw PgStoreErrors.recoveryFailed('the write-ahead log in PostgreSQL has a gap above its checkpoint')
    return (sink) => {
      for (const line of lines) sink.loadCheckpointLine(line)
      for (const record of records) sink.applyRecord(record)
      this.applied = read.lastSeq
      this.follower?.rebased(read.lastSeq)
      if (checkpoint !== null) {
        this.checkpointSeq = checkpoint.sequence
        this.checkpointAtMs = checkpoint.createdAtMs
      }
      return read.lastSeq
    }
  }

  async resumeLog(): Promise<void> {
    const failed = this.writer
    if (failed === null || failed.failed === null) return
    if (this.injected !== null) throw this.injected
    await this.ownership.renew()
    dropClient(this.writerClient)
    this.writerClient = null
    await this.startWriter(this.applied)
  }

  shouldCheckpoint(): boolean {
    const w = this.writer
    if (this.ownership.role !== 'primary' || w === null || w.failed !== null) return false
    if (w.lastSeq - (this.checkpointSeq ?? 0) === 0) return false
    const sinceBytes = this.walBytes() - this.bytesAtCheckpoint
    const age = this.opts.now() - (this.checkpointAtMs ?? this.intervalStartMs)
    return (
      sinceBytes >= checkpointAfterBytes(this.opts.checkpointEveryBytes, this.imageChars) ||
      age >= this.opts.checkpointEveryMs
    )
  }

  async checkpoint(
    sequence: number,
    lines: Iterable<CheckpointPiece>,
    pause?: () => Promise<void>,
  ): Promise<void> {
    // Only the owner writes images; a follower's close or an explicit checkpoint on it has nothing to do.
    if (this.ownership.role === 'follower') return
    const writer = this.writer
    if (writer === null || this.ownership.writeEpoch === null)
      throw this.writeRefusal() ?? PgStoreErrors.fenced('no ownership')
    await writer.drain()
    const client = await connectClient(this.opts.url, 'service-checkpoint', () => {})
    try {
      const info = await writePgCheckpoint(
        client,
        writer.epoch,
        sequence,
        // Column lines (typed arrays) are encoded here: the image goes to PostgreSQL as JSON text.
        asText(lines),
        pause ?? (() => Promise.resolve()),
      )
      this.checkpointSeq = info.sequence
      this.checkpointAtMs = info.createdAtMs
      this.imageChars = info.chars
      this.bytesAtCheckpoint = this.walBytes()
    } finally {
      dropClient(client)
    }
  }

  drain(): Promise<void> {
    return this.writer?.drain() ?? Promise.resolve()
  }

  private walBytes(): number {
    return this.baseBytes + (this.writer?.bytesWritten ?? 0)
  }

  durability(): DurabilityReport {
    const checkpoint = this.checkpointSeq
    return {
      controls: { require_fsync: this.opts.requireFsync, strict_recovery: this.opts.strictRecovery },
      wal_bytes: this.walBytes(),
      wal_lag_sequences: Math.max(0, this.lastSeq - (checkpoint ?? 0)),
      checkpoint_sequence: checkpoint,
      checkpoint_age_seconds:
        this.checkpointAtMs === null
          ? null
          : Math.max(0, Math.floor((this.opts.now() - this.checkpointAtMs) / 1000)),
      compaction_backlog_bytes: 0,
      recovery: {
        ...this.recovery.report,
        outcome: this.failed === null ? this.recovery.report.outcome : 'unavailable',
      },
    }
  }

  replication(): ReplicationReport {
    const tail = this.follower?.tail ?? null
    const applied = tail?.appliedSeq() ?? this.lastSeq
    const role = this.ownership.role
    return {
      backend: 'postgres',
      role,
      epoch: this.ownership.epoch,
      applied_sequence: applied,
      log_sequence: tail?.logSeq ?? this.lastSeq,
      lag_sequences: tail?.lagSequences() ?? 0,
      lag_ms: tail?.lagMs() ?? 0,
      reason:
        role === 'fenced'
          ? this.ownership.fenceReason
          : role === 'follower'
            ? `read follower${tail?.lastError ? ` (tail: ${tail.lastError})` : ''}`
            : null,
      primary_url: role === 'primary' ? null : this.opts.primaryUrl,
    }
  }

  follow(listener: TailListener): void {
    if (this.ownership.role !== 'follower') throw new Error('only a follower tails the log')
    this.follower = new FollowerRole(
      {
        url: this.opts.url,
        pollMs: this.opts.pollMs,
        leaseMs: this.opts.leaseMs,
        promote: this.opts.promote,
        holder: this.ownership.holder,
        now: this.opts.now,
        warn: this.opts.warn,
        role: () => this.ownership.role,
        auxClient: () => this.auxClient(),
        openOwnerSession: () => this.ownership.openSession(),
        applied: () => this.applied,
        advanced: (lastSeq, bytes) => {
          this.applied = lastSeq
          this.baseBytes += bytes
        },
        takeOver: (epoch) => this.ownership.takeOver(epoch, () => this.startWriter(this.applied)),
      },
      listener,
    )
  }

  async close(): Promise<void> {
    try {
      await this.writer?.drain()
    } finally {
      this.shutdown()
    }
  }

  private shutdown(): void {
    this.follower?.stop()
    this.ownership.close()
    dropClient(this.writerClient)
    dropClient(this.aux)
    this.aux = null
    this.writerClient = null
  }

  injectFailure(error: Error): void {
    this.injected = error
    this.writer?.injectFailure(error)
  }

  clearInjectedFailure(): void {
    this.injected = null
  }
}

function* asText(pieces: Iterable<CheckpointPiece>): Iterable<string> {
  for (const piece of pieces) {
    if (piece !== SLICE_POINT) yield typeof piece === 'string' ? piece : columnLineText(piece)
  }
}
