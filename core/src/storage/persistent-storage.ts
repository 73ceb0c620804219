import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { EngineError } from '../errors.js'
import { PAYLOAD_RECORD_FORMAT } from '../version.js'
import { type BackupSource, captureFileStore } from './backup/backup-source.js'
import { type CheckpointPiece, removeCheckpoint, writeCheckpoint } from './checkpoint.js'
import type { DurabilityReport } from './durability.js'
import {
  checkpointAfterBytes,
  DEFAULT_CHECKPOINT_EVERY_BYTES,
  type DurableStore,
  type RecoveryFigures,
  type ReplaySink,
  type ReplicationReport,
} from './durable-store.js'
import { loadLatestCheckpoint, recoverDirectory } from './file-recovery.js'
import { acquireDirectoryLock, type DirectoryLock } from './lock.js'
import { cutToDurablePrefix, probeStorage } from './log-resume.js'
import { type Manifest, type ManifestComponent, writeManifest, writeManifestAsync } from './manifest.js'
import { PAYLOAD_FILE, PAYLOAD_MAGIC, type PayloadFile } from './payload-file.js'
import { type ManifestHolder, RecordFormatGate } from './record-format-gate.js'
import { WalArchive } from './wal-archive.js'
import { listSegments, scanWal, WAL_DIR } from './wal-reader.js'
import { type Appended, type WalListener, WalWriter } from './wal-writer.js'

export interface PersistentStorageOptions {
  dir: string
  requireFsync: boolean
  strictRecovery: boolean
  version: string
  segmentBytes?: number
  checkpointEveryBytes?: number
  checkpointEveryMs?: number
  now?: () => number
  warn?: (message: string) => void
  /** SERVICE_STORAGE_WAL_ARCHIVE_DIR: where sealed segments are kept for point-in-time recovery. */
  walArchiveDir?: string
  /** SERVICE_STORAGE_PAYLOAD_CACHE_BYTES: bound of the payload file's read cache. */
  payloadCacheBytes?: number
}

export { PAYLOAD_FILE } from './payload-file.js'

/** 16 MiB: lookups and exports of thousands of objects fit; a restart's seed rebuild streams through it. */
const DEFAULT_PAYLOAD_CACHE_BYTES = 16 * 1024 * 1024

export type { RecoveryFigures, ReplaySink } from './durable-store.js'

/**
 * The persistent directory: single owner, manifest V1, JSON Lines WAL with group commit, checkpoints and
 * recovery. It stores opaque `{kind, body}` records; the engine decides what they mean.
 */
export class PersistentStorage implements DurableStore {
  private checkpointSeq: number | null = null
  private checkpointAtMs: number | null = null
  /** Start of the current checkpoint interval (open time until the first checkpoint). */
  private intervalStartMs = 0
  private walBytesAtCheckpoint = 0
  private baseWalBytes = 0
  /**
   * Bytes of segments wholly at or below the checkpoint. It only changes when a checkpoint is taken (later
   * segments hold later sequences), so /health and /metrics read it without touching the directory.
   */
  private backlogBytes = 0
  private listener: WalListener | null = null
  private injected: Error | null = null
  private archive: WalArchive | null = null

  private constructor(
    private readonly options: Required<Omit<PersistentStorageOptions, 'warn' | 'walArchiveDir'>> &
      Pick<PersistentStorageOptions, 'warn' | 'walArchiveDir'>,
    readonly payloads: PayloadFile,
    private readonly lock: DirectoryLock,
    /** The manifest every write of it starts from (the record-format gate raises its format in place). */
    private readonly held: ManifestHolder,
    private wal: WalWriter,
    readonly recovery: RecoveryFigures,
    private readonly format: RecordFormatGate,
  ) {}

  private get manifest(): Manifest {
    return this.held.manifest
  }

  private set manifest(manifest: Manifest) {
    this.held.manifest = manifest
  }

  static async open(input: PersistentStorageOptions, sink: ReplaySink): Promise<PersistentStorage> {
    const options = {
      segmentBytes: 64 * 1024 * 1024,
      checkpointEveryBytes: DEFAULT_CHECKPOINT_EVERY_BYTES,
      checkpointEveryMs: 10 * 60 * 1000,
      now: Date.now,
      payloadCacheBytes: DEFAULT_PAYLOAD_CACHE_BYTES,
      ...input,
    }
    const started = performance.now()
    mkdirSync(options.dir, { recursive: true })
    const lock = acquireDirectoryLock(options.dir, options.version)
    let payloads: PayloadFile | null = null
    try {
      const warnings: string[] = []
      const warn = (message: string) => {
        warnings.push(message)
        options.warn?.(message)
      }
      const fail = (message: string): never => {
        throw new EngineError('STORAGE_RECOVERY_FAILED', message)
      }

      const found = recoverDirectory(options, sink, warn, fail)
      payloads = found.payloads
      const { manifest, loaded, checkpointRecords, componentsValid, replayed, scan } = found
      const held: ManifestHolder = { manifest }
      const format = new RecordFormatGate(options.dir, held)
      const archive =
        options.walArchiveDir === undefined ? null : new WalArchive(options.dir, options.walArchiveDir, warn)
      let opened: PersistentStorage | null = null
      const wal = await WalWriter.open(
        {
          dir: options.dir,
          requireFsync: options.requireFsync,
          segmentBytes: options.segmentBytes,
          now: options.now,
          beforeLine: format.beforeLine,
          sealed: () => opened?.archiveSealed(),
        },
        scan.lastSeq,
      )
      const recovery: RecoveryFigures = {
        report: {
          outcome: 'recovered',
          manifest_validated: true,
          required_components_validated: componentsValid,
          catalog_recovered: true,
          adjacency_storage_recovered: true,
          warning_count: warnings.length,
          derived_state_rebuilt: true,
        },
        replayedTransactions: replayed,
        checkpointRecords,
        recoveryPath: loaded === null ? 'full_replay' : 'checkpoint_and_bounded_replay',
        warnings,
        elapsedMs: Math.round(performance.now() - started),
      }
      const storage = new PersistentStorage(options, payloads, lock, held, wal, recovery, format)
      opened = storage
      storage.archive = archive
      // Segments sealed before this start (the last run's tail after a crash) are archived now.
      storage.archiveSealed()
      storage.intervalStartMs = options.now()
      if (loaded !== null) {
        storage.checkpointSeq = loaded.sequence
        // The checkpoint's own time (the manifest is rewritten with each checkpoint), not the restart's.
        const writtenAt = Date.parse(manifest.updated_at.value)
        storage.checkpointAtMs = Number.isNaN(writtenAt) ? options.now() : writtenAt
      }
      storage.measureSegments()
      storage.walBytesAtCheckpoint = storage.walBytes()
      return storage
    } catch (error) {
      payloads?.close()
      lock.release()
      throw error
    }
  }

  get graphId(): string {
    return this.manifest.graph_id.value
  }

  /** The newest sequence of the log; after a failure, the last durable one (nothing above it will stay). */
  get lastSeq(): number {
    return this.wal.failed === null ? this.wal.lastSeq : this.wal.durableSeq
  }

  get durableSeq(): number {
    return this.wal.durableSeq
  }

  get failed(): Error | null {
    return this.wal.failed
  }

  append(kind: string, body: unknown, tx?: string): Appended {
    return this.wal.append(kind, body, tx)
  }

  /** Told once per durable batch and on failure, before the batch's writers wake. */
  listen(listener: WalListener): void {
    this.listener = listener
    this.wal.listener = listener
  }

  /**
   * After a log failure: hands `sink` the state as it is durable (the checkpoint, then every record up to the
   * log's durable sequence) and returns that sequence. Only reads the directory: records past the durable
   * sequence (the failed batch, perhaps torn) are skipped, and nothing is repaired here.
   */
  reloadDurable(sink: ReplaySink): number {
    const upTo = this.wal.durableSeq
    const { afterSeq } = loadLatestCheckpoint(this.options.dir, this.manifest, this.payloads, sink, () => {})
    if (afterSeq > upTo) throw new Error(`checkpoint at ${afterSeq} is past the durable sequence ${upTo}`)
    const scan = scanWal(this.options.dir, afterSeq, (record) => {
      if (record.seq <= upTo) sink.applyRecord(record)
    })
    if (scan.lastSeq < upTo) {
      throw new Error(`the log reads back only to ${scan.lastSeq}, below its durable sequence ${upTo}`)
    }
    return upTo
  }

  async prepareReload(): Promise<(sink: ReplaySink) => number> {
    return (sink) => this.reloadDurable(sink)
  }

  /** One directory, one owning process: always the primary, never lagging. */
  replication(): ReplicationReport {
    const seq = this.lastSeq
    return {
      backend: 'file',
      role: 'primary',
      epoch: null,
      applied_sequence: seq,
      log_sequence: seq,
      lag_sequences: 0,
      lag_ms: 0,
      reason: null,
      primary_url: null,
    }
  }

  /** The directory at its durable sequence (backup-source.ts), captured in one synchronous step. */
  backupSource(): BackupSource {
    return captureFileStore({
      dir: this.options.dir,
      manifest: this.manifest,
      durableSeq: this.wal.durableSeq,
      live: this.wal.liveSegment,
    })
  }

  writeRefusal(): null {
    return null
  }

  follow(): void {
    throw new Error('a storage directory has no followers; use PostgreSQL for read followers')
  }

  /**
   * Resumes writing after a log failure once the storage answers again: probes it with a fresh file, gives
   * up the failed log's descriptor, cuts its live segment back to the durable prefix, and opens a new log
   * after the durable sequence. Throws (and changes nothing) while the storage
   * still fails.
   */
  async resumeLog(): Promise<void> {
    const failed = this.wal
    if (failed.failed === null) return
    if (this.injected !== null) throw this.injected
    probeStorage(join(this.options.dir, WAL_DIR))
    failed.abandon()
    const live = failed.liveSegment
    cutToDurablePrefix(live.path, live.durableBytes)
    const wal = await WalWriter.open(
      {
        dir: this.options.dir,
        requireFsync: this.options.requireFsync,
        segmentBytes: this.options.segmentBytes,
        now: this.options.now,
        beforeLine: this.format.beforeLine,
        sealed: () => this.archiveSealed(),
      },
      failed.durableSeq,
    )
    wal.listener = this.listener
    this.wal = wal
    this.archiveSealed()
    this.measureSegments()
    this.walBytesAtCheckpoint = Math.min(this.walBytesAtCheckpoint, this.walBytes())
  }

  private walBytes(): number {
    return this.baseWalBytes + this.wal.bytesWritten
  }

  shouldCheckpoint(): boolean {
    const lag = this.wal.lastSeq - (this.checkpointSeq ?? 0)
    if (lag === 0) return false
    const sinceBytes = this.walBytes() - this.walBytesAtCheckpoint
    const age = this.options.now() - (this.checkpointAtMs ?? this.intervalStartMs)
    return sinceBytes >= this.checkpointAfterBytes() || age >= this.options.checkpointEveryMs
  }

  private checkpointAfterBytes(): number {
    // Asked after every write: a loop, not a closure for find() each time.
    let image = 0
    for (const c of this.manifest.components) {
      if (c.name !== 'checkpoint') continue
      image = c.bytes
      break
    }
    return checkpointAfterBytes(this.options.checkpointEveryBytes, image)
  }

  /**
   * Writes a checkpoint of the state at `sequence` (the caller hands lines consistent with it), switches the
   * manifest to it atomically, keeps one previous generation, and compacts WAL segments below that one.
   */
  async checkpoint(
    sequence: number,
    lines: Iterable<CheckpointPiece>,
    pause?: () => Promise<void>,
  ): Promise<void> {
    await this.wal.drain()
    await this.writeCheckpoint(sequence, lines, pause)
  }

  /**
   * Throws if the log failed (or was replaced) since `wal` was current: the state a checkpoint was being
   * written from may have been rebuilt meanwhile, so its image must not replace the previous one.
   */
  private assertLogUnchanged(wal: WalWriter): void {
    if (this.wal !== wal || wal.failed !== null) {
      throw new EngineError(
        'CHECKPOINT_ABANDONED',
        'the write-ahead log failed while the checkpoint was written; the previous checkpoint stays',
      )
    }
  }

  /** Waits for every appended record to be on disk (or to fail). */
  drain(): Promise<void> {
    return this.wal.drain()
  }

  /**
   * The caller guarantees `lines` is the state at `sequence` and that it does not change meanwhile, pauses
   * included (records appended meanwhile are above `sequence` and replay over the image).
   */
  async writeCheckpoint(
    sequence: number,
    lines: Iterable<CheckpointPiece>,
    pause?: () => Promise<void>,
  ): Promise<void> {
    const wal = this.wal
    const file = await writeCheckpoint(
      this.options.dir,
      sequence,
      lines,
      new Date(this.options.now()),
      pause,
      () => this.assertLogUnchanged(wal),
    )
    // Every payload the image references is on disk before the manifest names the image.
    const payloadBytes = await this.payloads.sync()
    // Fault injection for e2e/src/payload-kill.test.ts only: die with the payloads synced, the manifest not switched.
    if (process.env.SERVICE_FAULT_KILL_AFTER_PAYLOAD_SYNC === '1' && payloadBytes > PAYLOAD_MAGIC.length)
      process.kill(process.pid, 'SIGKILL')
    this.assertLogUnchanged(wal)
    const current = this.manifest.components.find((c) => c.name === 'checkpoint')
    const previous = this.manifest.components.find((c) => c.name === 'previous_checkpoint')
    const components: ManifestComponent[] = [
      { name: 'checkpoint', path: file.name, sequence, sha256: file.sha256, bytes: file.bytes },
    ]
    if (current !== undefined && current.path !== file.name)
      components.push({ ...current, name: 'previous_checkpoint' })
    const holdsPayloads = payloadBytes > PAYLOAD_MAGIC.length
    const written: Manifest = {
      ...this.manifest,
      // The first payload raises the format, so an older build refuses the directory.
      ...(holdsPayloads
        ? {
            record_format: PAYLOAD_RECORD_FORMAT,
            payloads: { path: PAYLOAD_FILE, bytes: payloadBytes },
          }
        : {}),
      updated_at: { value: new Date(this.options.now()).toISOString() },
      components,
    }
    this.manifest = written
    await writeManifestAsync(this.options.dir, written)
    // The record format rose while this write was in flight: the file just renamed says the older one.
    if (this.manifest.record_format !== written.record_format) writeManifest(this.options.dir, this.manifest)
    if (previous !== undefined && previous.path !== file.name && previous.path !== current?.path) {
      await removeCheckpoint(this.options.dir, previous.path)
    }
    this.checkpointSeq = sequence
    this.checkpointAtMs = this.options.now()
    // Segments are kept back to the previous generation, so either checkpoint can still be replayed from.
    const keepAbove = current?.sequence ?? 0
    const segments = listSegments(this.options.dir)
    for (let i = 0; i < segments.length - 1; i++) {
      const lastInSegment = segments[i + 1]!.firstSeq - 1
      // On the thread pool: removing hundreds of megabytes of segments held the event loop for ~0.6 s.
      // A segment the WAL archive does not hold yet stays until it does (point-in-time recovery needs it).
      if (lastInSegment <= keepAbove && (this.archive?.holds(segments[i]!.name) ?? true))
        await unlink(segments[i]!.path)
    }
    this.measureSegments()
    this.walBytesAtCheckpoint = this.walBytes()
  }

  /** One directory listing after open or compaction: the WAL size baseline and the compaction backlog. */
  private measureSegments(): void {
    const segments = listSegments(this.options.dir)
    this.baseWalBytes = segments.reduce((n, s) => n + s.bytes, 0) - this.wal.bytesWritten
    const checkpoint = this.checkpointSeq
    this.backlogBytes = 0
    if (checkpoint === null) return
    for (let i = 0; i < segments.length - 1; i++) {
      if (segments[i + 1]!.firstSeq - 1 <= checkpoint) this.backlogBytes += segments[i]!.bytes
    }
  }

  durability(): DurabilityReport {
    const checkpoint = this.checkpointSeq
    return {
      controls: { require_fsync: this.options.requireFsync, strict_recovery: this.options.strictRecovery },
      wal_bytes: this.walBytes(),
      wal_lag_sequences: Math.max(0, this.wal.lastSeq - (checkpoint ?? 0)),
      checkpoint_sequence: checkpoint,
      checkpoint_age_seconds:
        this.checkpointAtMs === null
          ? null
          : Math.max(0, Math.floor((this.options.now() - this.checkpointAtMs) / 1000)),
      compaction_backlog_bytes: this.backlogBytes,
      recovery: {
        ...this.recovery.report,
        outcome: this.wal.failed === null ? this.recovery.report.outcome : 'unavailable',
      },
    }
  }

  /** Copies sealed segments into the WAL archive, in the background (wal-archive.ts). */
  private archiveSealed(): void {
    void this.archive?.catchUp(this.wal.liveSegment.path)
  }

  async close(): Promise<void> {
    try {
      await this.wal.close()
      // The tail too: the next start begins a new segment, so the live one is sealed now.
      if (this.archive !== null && this.wal.failed === null) {
        await this.archive.settle()
        await this.archive.catchUp(null)
      }
    } finally {
      this.payloads.close()
      this.lock.release()
    }
  }

  /** Names of files in the directory, for operators' offline checks. */
  static files(dir: string): string[] {
    return existsSync(dir) ? readdirSync(dir) : []
  }

  /** Test hook: the log fails now and the storage keeps failing (resumeLog throws) until cleared. */
  injectFailure(error: Error): void {
    this.injected = error
    this.wal.injectFailure(error)
  }

  /** Test hook: the injected storage answers again. */
  clearInjectedFailure(): void {
    this.injected = null
  }
}
