import { closeSync, fdatasync, fstatSync, mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors.js'
import { fsyncDirectory } from './atomic-file.js'
import { writeAllAt } from './positional-write.js'
import { storageTrouble } from './storage-trouble.js'
import { nextTxId } from './tx-ids.js'
import { segmentName, WAL_DIR } from './wal-reader.js'
import { sealWalRecord, walRecordPrefix } from './wal-record.js'

export interface Appended {
  seq: number
  tx: string
  /** Resolves once the record is written (and fsynced when required); rejects with DURABILITY_FAILED. */
  durable: Promise<void>
}

/** The records of one write+fsync share one promise: no promise or callback per record. */
class Batch {
  resolve!: () => void
  reject!: (error: Error) => void
  readonly durable = new Promise<void>((resolve, reject) => {
    this.resolve = resolve
    this.reject = reject
  })
  lines: string[] = []
  constructor() {
    // A caller that stops waiting (its request failed first) must not leave an unhandled rejection.
    this.durable.catch(() => {})
  }
}

export interface WalWriterOptions {
  dir: string
  requireFsync: boolean
  /** Told after a rotation sealed a segment (the WAL archive copies it). */
  sealed?: () => void
  /** Rotate to a new segment past this size. */
  segmentBytes: number
  now: () => number
  /**
   * Sees each record's text (its line without the checksum that ends it) before it is queued, synchronously:
   * the storage raises its manifest's record format here before the first line that needs the newer one can
   * reach the disk.
   */
  beforeLine?: (line: string) => void
}

/** Told once per batch, before the batch's writers wake. */
export interface WalListener {
  /** Everything up to `seq` is on disk. */
  durable(seq: number): void
  /** The log failed; nothing above the last `durable` sequence will ever be. */
  failed(error: Error): void
}

/**
 * Appends records to the live segment with group commit: every record appended while a write+fsync is in
 * flight joins the next one, so concurrent writers share one fsync. After any write or fsync failure the
 * log is poisoned (fail-stop, as databases do after a failed fsync: the page cache can no longer be trusted)
 * and every later append fails too; PersistentStorage.resumeLog replaces it once the storage answers.
 *
 * Pipelining: the write of a batch is synchronous (page cache) and only the fdatasync runs on the thread
 * pool, so the next batch collects while one is being synced. Writers woken by one fsync come back together
 * (a cohort). If a cohort's work takes longer than an fsync, its first half is synced on its own while the
 * second half works, and from then on the halves alternate, the disk syncing one while the CPU serves the
 * other; once an fsync outlasts the work of both halves, they are merged into one batch again.
 */
export class WalWriter {
  private fd: number | null = null
  private pending = new Batch()
  /** A batch is written and its fdatasync is in flight. */
  private syncing = false
  /** An end-of-tick flush is scheduled. */
  private scheduled = false
  /** Pending count at which a flush starts before the tick ends (0: wait for the tick to end). */
  private splitAt = 0
  /** When the writers of the last durable batch were woken, and when the last record was appended: the
   * difference is how long those writers worked before waiting again. */
  private wokeAt = 0
  private appendedAt = 0
  private readonly idleWaiters: (() => void)[] = []
  private failure: Error | null = null
  private segmentSize = 0
  private segmentPath = ''
  /** Bytes of the live segment known to be on disk: the end of its last durable batch. */
  private segmentDurableBytes = 0
  private nextSeq: number
  /** Highest sequence known to be on disk. */
  durableSeq: number
  bytesWritten = 0
  fsyncs = 0
  listener: WalListener | null = null

  private constructor(
    private readonly options: WalWriterOptions,
    lastSeq: number,
  ) {
    this.nextSeq = lastSeq + 1
    this.durableSeq = lastSeq
  }

  static async open(options: WalWriterOptions, lastSeq: number): Promise<WalWriter> {
    const writer = new WalWriter(options, lastSeq)
    mkdirSync(join(options.dir, WAL_DIR), { recursive: true })
    writer.startSegment(lastSeq + 1)
    return writer
  }

  get lastSeq(): number {
    return this.nextSeq - 1
  }

  get failed(): Error | null {
    return this.failure
  }

  /** Starts a fresh segment named by its first sequence (recovery truncated or sealed the previous ones). */
  private startSegment(firstSeq: number): void {
    if (this.fd !== null) closeSync(this.fd)
    this.fd = null
    const path = join(this.options.dir, WAL_DIR, segmentName(firstSeq))
    this.segmentPath = path
    this.segmentDurableBytes = 0
    this.fd = openSync(path, 'a')
    this.segmentSize = fstatSync(this.fd).size
    this.segmentDurableBytes = this.segmentSize
    fsyncDirectory(join(this.options.dir, WAL_DIR))
  }

  append(kind: string, body: unknown, tx: string = nextTxId()): Appended {
    if (this.failure !== null) {
      throw new EngineError(
        'DURABILITY_FAILED',
        `the write-ahead log is unavailable after an earlier failure: ${this.failure.message}`,
      )
    }
    const seq = this.nextSeq
    const batch = this.pending
    const prefix = walRecordPrefix({ seq, tx, at: this.options.now(), kind, body })
    // Only the digest follows: the gate reads the record's text where it is flat (a test of the whole line
    // would copy it into one string first, a third of a microsecond a write).
    this.options.beforeLine?.(prefix)
    // Taken only now: a body that cannot be encoded or a gate that cannot write its manifest fails this
    // append alone, and the next record takes the same sequence (a hole would stop recovery as a gap).
    this.nextSeq++
    const line = sealWalRecord(prefix)
    const count = batch.lines.push(line)
    this.appendedAt = performance.now()
    if (!this.syncing) {
      if (count === this.splitAt) this.flush()
      else this.flushAtEndOfTick()
    }
    return { seq, tx, durable: batch.durable }
  }

  /** Lets every append of this tick join the same write. */
  private flushAtEndOfTick(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(this.endOfTick)
  }

  private readonly endOfTick = (): void => {
    this.scheduled = false
    if (!this.syncing && this.pending.lines.length > 0) this.flush()
  }

  /** Writes every pending line at once and starts their fdatasync. */
  private flush(): void {
    const batch = this.pending
    const lines = batch.lines
    const lastSeq = this.nextSeq - 1
    this.pending = new Batch()
    this.splitAt = 0
    let bytes = 0
    try {
      if (this.failure !== null) throw this.failure
      bytes = writeAllAt(this.fd!, lines.length === 1 ? lines[0]! : lines.join(''), this.segmentSize)
    } catch (error) {
      this.fail(error as Error, batch)
      return
    }
    this.segmentSize += bytes
    this.bytesWritten += bytes
    const end = this.segmentSize
    if (!this.options.requireFsync) {
      this.batchDurable(lastSeq, batch, end)
      return
    }
    this.syncing = true
    const started = performance.now()
    fdatasync(this.fd!, (error) => {
      this.syncing = false
      if (error !== null) {
        this.fail(error, batch)
        return
      }
      this.fsyncs++
      const now = performance.now()
      const syncMs = now - started
      const workMs = this.appendedAt - this.wokeAt
      // What collected meanwhile came from the other half of a split cohort (whose work was `workMs`).
      const halves = this.pending.lines.length > 0
      let pipeline = false
      if (halves) pipeline = splitPays(2 * workMs, syncMs)
      else this.splitAt = splitPays(workMs, syncMs) ? Math.ceil(lines.length / 2) : 0
      this.wokeAt = now
      this.batchDurable(lastSeq, batch, end)
      if (!halves || this.syncing) return
      // Sync the other half now while this one works, or let this one join it at the end of the tick.
      if (pipeline) this.flush()
      else this.flushAtEndOfTick()
    })
  }

  private batchDurable(lastSeq: number, batch: Batch, end: number): void {
    this.durableSeq = lastSeq
    this.segmentDurableBytes = end
    try {
      if (this.segmentSize >= this.options.segmentBytes) {
        this.startSegment(lastSeq + 1)
        this.options.sealed?.()
      }
    } catch (error) {
      // The batch is on disk; only the next one cannot be written.
      this.noteFailure(error as Error)
    }
    this.listener?.durable(lastSeq)
    batch.resolve()
    if (this.pending.lines.length === 0) this.wakeIdle()
  }

  /** The first failure poisons the log and is told once; later ones only fail their own batches. */
  private noteFailure(error: Error): void {
    if (this.failure !== null) return
    this.failure = error
    this.listener?.failed(error)
  }

  private fail(error: Error, batch: Batch): void {
    this.noteFailure(error)
    const failure = new EngineError(
      'DURABILITY_FAILED',
      `write-ahead log append failed, the write was not acknowledged: ${storageTrouble(error)}`,
      { cause: error },
    )
    batch.reject(failure)
    this.pending.reject(failure)
    this.pending = new Batch()
    this.wakeIdle()
  }

  private wakeIdle(): void {
    if (this.idleWaiters.length === 0) return
    const idle = this.idleWaiters.splice(0)
    for (const wake of idle) wake()
  }

  /** Waits for everything appended so far to be on disk (or to have failed). */
  async drain(): Promise<void> {
    while (this.syncing || this.pending.lines.length > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
    }
  }

  async close(): Promise<void> {
    await this.drain()
    if (this.fd !== null) closeSync(this.fd)
    this.fd = null
  }

  /** The live segment and how much of it is durable: after a failure, the rest of it is not to be trusted. */
  get liveSegment(): { path: string; durableBytes: number } {
    return { path: this.segmentPath, durableBytes: this.segmentDurableBytes }
  }

  /**
   * Gives up a failed log: closes its file without another fsync (after a failed fsync the kernel may have
   * dropped the dirty pages and a second fsync can report success for data that never reached the disk).
   */
  abandon(): void {
    if (this.fd === null) return
    try {
      closeSync(this.fd)
    } catch {
      // the descriptor is dropped either way
    }
    this.fd = null
  }

  /** Test hook: the log fails now, as after a failed write or fsync (the listener is told, appends throw). */
  injectFailure(error: Error): void {
    this.noteFailure(error)
  }
}

/**
 * Whether a cohort of writers whose work takes `workMs` between two fsyncs of `syncMs` goes faster in two
 * alternating halves: per round that costs max(work/2, sync) twice against work + sync in one batch, which
 * is less exactly when the work outlasts the fsync.
 */
export function splitPays(workMs: number, syncMs: number): boolean {
  return workMs > syncMs
}
