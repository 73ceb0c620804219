import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { EngineError } from '../../errors.js'
import type { BackupSource } from '../backup/backup-source.js'
import { type CheckpointPiece, columnLineText, SLICE_POINT } from '../checkpoint-encoder.js'
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
import { type OwnerSession, OwnerSessions } from './pg-owner.js'
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
  /** The ownership session (opened once however many ask) and ownership steps, one at a time. */
  private readonly owners: OwnerSessions
  /** The epoch this process may write under; null after a failure until ownership is renewed. */
  private ownedEpoch: number | null = null
  private epoch: number | null = null
  private role: 'primary' | 'follower' | 'fenced'
  private fencedReason: string | null = null
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
  private retaking = false
  private closed = false
  private readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
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
    this.role = options.role
    this.owners = new OwnerSessions(this.opts.url, this.opts.leaseMs, (error) => this.leaseLost(error))
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
      if (options.role === 'primary' || options.promote === 'auto') await storage.openOwnerSession()
      if (options.role === 'primary') {
        if (!(await storage.owners.current!.tryLock())) throw PgStoreErrors.ownedElsewhere()
        const taken = await storage.owners.current!.takeEpoch(
          `graph--runtime-${randomUUID()}`,
          storage.holder,
        )
        storage.epoch = taken.epoch
        storage.ownedEpoch = taken.epoch
      }
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

  private openOwnerSession(): Promise<OwnerSession> {
    return this.owners.open()
  }

  private async startWriter(lastSeq: number): Promise<void> {
    const epoch = this.ownedEpoch
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
        // Any failure renews ownership before the next write: the renewal waits out an append in flight.
        this.ownedEpoch = null
        if (error instanceof EngineError && error.code === 'STORAGE_FENCED') this.fence(error.message)
        this.listener?.failed(error)
      },
    }
  }

  /**
   * The ownership session ended (the database restarted, or this process stalled past the lease). Writes go
   * on meanwhile: the epoch, not the lock, keeps them safe. The lock is taken back in the background; if
   * another primary raised the epoch meanwhile, this server fences itself.
   */
  private leaseLost(error: Error): void {
    if (this.role !== 'primary' || this.writer === null) return
    this.opts.warn?.(`the PostgreSQL ownership session ended (${error.message}); taking it back`)
    void this.retakeLease()
  }

  private async retakeLease(): Promise<void> {
    if (this.retaking) return
    this.retaking = true
    try {
      while (this.role === 'primary' && !this.closed) {
        try {
          // One ownership step at a time: a reload's renewal raising the epoch meanwhile is not a takeover.
          const done = await this.owners.serially(async () => {
            const owner = await this.openOwnerSession()
            const mine = this.epoch
            const locked = await owner.tryLock()
            const current = await owner.currentEpoch()
            if (current !== mine) {
              this.fenceWriter(`another primary took over (epoch ${current}, this server had ${mine})`)
              return true
            }
            if (locked) this.opts.warn?.('the PostgreSQL ownership session is back; the epoch is unchanged')
            return locked
          })
          if (done) return
        } catch {
          // the database does not answer yet: try again after a while
        }
        await new Promise((resolve) => setTimeout(resolve, Math.max(50, Math.floor(this.opts.leaseMs / 3))))
      }
    } finally {
      this.retaking = false
    }
  }

  private fenceWriter(reason: string): void {
    this.fence(reason)
    this.writer?.injectFailure(PgStoreErrors.fenced(reason))
  }

  private isFenced(): boolean {
    return this.role === 'fenced'
  }

  private fence(reason: string): void {
    if (this.role === 'fenced') return
    this.role = 'fenced'
    this.fencedReason = reason.replace(
      /^this server no longer owns the PostgreSQL store and refuses writes: /,
      '',
    )
    this.opts.warn?.(`fenced: ${this.fencedReason}`)
  }

  /** After a failure: take ownership back under a new epoch, or learn that another primary has it. */
  private renewOwnership(): Promise<void> {
    return this.owners.serially(() => this.renewOwnershipNow())
  }

  private async renewOwnershipNow(): Promise<void> {
    if (this.role === 'fenced') throw PgStoreErrors.fenced(this.fencedReason ?? 'another primary took over')
    if (this.ownedEpoch !== null && this.owners.current?.alive) return
    const owner = await this.openOwnerSession()
    if (!(await owner.tryLock())) {
      const current = await owner.currentEpoch()
      if (current !== this.epoch) {
        this.fence(
          `another primary holds the ownership lock under epoch ${current} (this server had ${this.epoch})`,
        )
        throw PgStoreErrors.fenced(this.fencedReason!)
      }
      throw new Error('the ownership lock is held by another session')
    }
    const renewed = await owner.renewEpoch(this.epoch!, this.holder)
    if (renewed === null) {
      const current = await owner.currentEpoch()
      this.fence(`another primary took over (epoch ${current}, this server had ${this.epoch})`)
      throw PgStoreErrors.fenced(this.fencedReason!)
    }
    this.epoch = renewed
    this.ownedEpoch = renewed
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
    if (this.role === 'follower') return PgStoreErrors.readOnlyFollower(this.opts.primaryUrl)
    if (this.role === 'fenced') return PgStoreErrors.fenced(this.fencedReason ?? 'another primary took over')
    return null
  }

  async prepareReload(): Promise<(sink: ReplaySink) => number> {
    if (this.role === 'primary') {
      try {
        await this.renewOwnership()
      } catch (error) {
        // A fenced server still reloads (reads go on); any other failure waits for the database.
        if (!this.isFenced()) throw error
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
    await this.renewOwnership()
    dropClient(this.writerClient)
    this.writerClient = null
    await this.startWriter(this.applied)
  }

  shouldCheckpoint(): boolean {
    const w = this.writer
    if (this.role !== 'primary' || w === null || w.failed !== null) return false
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
    if (this.role === 'follower') return
    const writer = this.writer
    if (writer === null || this.ownedEpoch === null)
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
    return {
      backend: 'postgres',
      role: this.role,
      epoch: this.epoch,
      applied_sequence: applied,
      log_sequence: tail?.logSeq ?? this.lastSeq,
      lag_sequences: tail?.lagSequences() ?? 0,
      lag_ms: tail?.lagMs() ?? 0,
      reason:
        this.role === 'fenced'
          ? this.fencedReason
          : this.role === 'follower'
            ? `read follower${tail?.lastError ? ` (tail: ${tail.lastError})` : ''}`
            : null,
      primary_url: this.role === 'primary' ? null : this.opts.primaryUrl,
    }
  }

  follow(listener: TailListener): void {
    if (this.role !== 'follower') throw new Error('only a follower tails the log')
    this.follower = new FollowerRole(
      {
        url: this.opts.url,
        pollMs: this.opts.pollMs,
        leaseMs: this.opts.leaseMs,
        promote: this.opts.promote,
        holder: this.holder,
        now: this.opts.now,
        warn: this.opts.warn,
        role: () => this.role,
        auxClient: () => this.auxClient(),
        openOwnerSession: () => this.openOwnerSession(),
        applied: () => this.applied,
        advanced: (lastSeq, bytes) => {
          this.applied = lastSeq
          this.baseBytes += bytes
        },
        takeOver: async (epoch) => {
          this.epoch = epoch
          this.ownedEpoch = epoch
          await this.startWriter(this.applied)
          this.role = 'primary'
        },
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
    this.closed = true
    this.follower?.stop()
    this.owners.current?.close()
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
