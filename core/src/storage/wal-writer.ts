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

/** A written batch whose fdatasync is in flight, in the order the batches were written. */
interface Syncing {
  batch: Batch
  /** Its number: batches are numbered as they are written. */
  n: number
  lastSeq: number
  /** The segment's size once it was written. */
  end: number
}

/**
 * fdatasyncs in flight at once. A second one started while the first runs overlaps it on the disks this was
 * measured on (fdatasync every 32 records: 104k records/s one at a time, 150k two at a time, 212k three), so
 * writers woken by one fsync need not wait for the next to end before theirs can start. Two, not more: each
 * holds a thread of libuv's pool (four by default), which file reads and other work share. Each runs through
 * a descriptor of its own: Linux reports a writeback error once per open file (errseq), so two fsyncs through
 * one descriptor could let one answer success for pages whose error the other consumed.
 */
export const MAX_SYNCS_IN_FLIGHT = 2

/** Records waiting for the disk from which a cohort is split (below it, one batch a turn is enough). */
const MIN_SPLIT = 16

/**
 * Appends records to the live segment with group commit: every record appended in one event-loop turn joins
 * one write and one fsync. After any write or fsync failure the log is poisoned (fail-stop, as databases do
 * after a failed fsync: the page cache can no longer be trusted) and every later append fails too;
 * PersistentStorage.resumeLog replaces it once the storage answers.
 *
 * Pipelining: the write of a batch is synchronous (page cache) and only the fdatasync runs on the thread
 * pool, up to MAX_SYNCS_IN_FLIGHT at once; past that, appends collect into the next batch. Writers woken by
 * one fsync come back together (a cohort) in one event-loop turn. With many writers waiting, a cohort is
 * written in parts (the writers waiting, over MAX_SYNCS_IN_FLIGHT), each synced as soon as it is complete,
 * so the disk syncs one part while the CPU serves the next instead of idling until the turn ends. A batch is durable
 * once an fdatasync started after it was written has returned: its own, or a later batch's that returned
 * first (it covers every byte written before it started), so batches are acknowledged in the order they were
 * written whatever order their fsyncs return in.
 */
export class WalWriter {
  /** The live segment, opened for appending; the first of `syncFds`. */
  private fd: number | null = null
  /** One descriptor of the live segment per fsync slot; a slot is busy while its fdatasync is in flight. */
  private syncFds: number[] = []
  private readonly slotBusy = new Array<boolean>(MAX_SYNCS_IN_FLIGHT).fill(false)
  private pending = new Batch()
  /** Written batches whose fsync is in flight (or returned after a later one), oldest first. */
  private readonly syncing: Syncing[] = []
  /** Batches written so far, and the number of the newest one known to be on disk. */
  private written = 0
  private settled = 0
  /** An end-of-tick flush is scheduled. */
  private scheduled = false
  /** Pending count at which a flush starts before the turn ends (0: at the end of the turn). */
  private splitAt = 0
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

  /** fdatasyncs in flight: the busy slots. */
  private get inFlight(): number {
    let busy = 0
    for (const slot of this.slotBusy) if (slot) busy++
    return busy
  }

  get lastSeq(): number {
    return this.nextSeq - 1
  }

  get failed(): Error | null {
    return this.failure
  }

  /** Starts a fresh segment named by its first sequence (recovery truncated or sealed the previous ones). */
  private startSegment(firstSeq: number): void {
    this.closeFds()
    const path = join(this.options.dir, WAL_DIR, segmentName(firstSeq))
    this.segmentPath = path
    this.segmentDurableBytes = 0
    this.fd = openSync(path, 'a')
    this.syncFds = [this.fd]
    while (this.syncFds.length < MAX_SYNCS_IN_FLIGHT) this.syncFds.push(openSync(path, 'r'))
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
    // At the cap, the fsync that returns first schedules the flush.
    if (this.inFlight < MAX_SYNCS_IN_FLIGHT) {
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
    if (this.inFlight < MAX_SYNCS_IN_FLIGHT && this.pending.lines.length > 0) this.flush()
  }

  /** Writes every pending line at once and starts their fdatasync. */
  private flush(): void {
    if (this.failure === null && this.segmentSize >= this.options.segmentBytes) {
      // The segment is full: the next one starts once every fsync on this one has returned (that return
      // flushes what collected meanwhile). A rotation that fails is noted, and this batch fails with it below.
      if (this.inFlight > 0) return
      this.rotate()
    }
    const batch = this.pending
    const lines = batch.lines
    const lastSeq = this.nextSeq - 1
    this.pending = new Batch()
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
    const entry: Syncing = { batch, n: ++this.written, lastSeq, end: this.segmentSize }
    this.syncing.push(entry)
    if (!this.options.requireFsync) {
      this.settleThrough(entry.n)
      return
    }
    const slot = this.slotBusy.indexOf(false)
    this.slotBusy[slot] = true
    fdatasync(this.syncFds[slot]!, (error) => {
      this.slotBusy[slot] = false
      // Once the log has failed nothing more is acknowledged, even what this fsync may have made durable:
      // the storage then cuts the segment back to what was acknowledged and logs on after it.
      const failure = error ?? this.failure
      if (failure !== null) this.fail(failure, null)
      else {
        this.fsyncs++
        this.settleThrough(entry.n)
      }
      if (this.pending.lines.length > 0) this.flushAtEndOfTick()
      else if (this.inFlight === 0) this.wakeIdle()
    })
  }

  /** Batches up to number `n` are on disk: tells the listener once, then wakes their writers in order. */
  private settleThrough(n: number): void {
    if (n <= this.settled) return
    this.settled = n
    let last: Syncing | undefined
    let done = 0
    while (done < this.syncing.length && (this.syncing[done] as Syncing).n <= n) last = this.syncing[done++]
    const settled = this.syncing.splice(0, done)
    if (last === undefined) return
    // Everyone appended and not on disk before this: about as many as the writers at work.
    const waiting = this.nextSeq - 1 - this.durableSeq
    this.splitAt = waiting >= MIN_SPLIT ? Math.ceil(waiting / MAX_SYNCS_IN_FLIGHT) : 0
    this.durableSeq = last.lastSeq
    this.segmentDurableBytes = last.end
    this.listener?.durable(last.lastSeq)
    for (const entry of settled) entry.batch.resolve()
    if (this.inFlight === 0 && this.segmentSize >= this.options.segmentBytes) this.rotate()
    if (this.inFlight === 0 && this.pending.lines.length === 0) this.wakeIdle()
  }

  /** Seals the full segment and starts the next at the next sequence to be written. */
  private rotate(): void {
    try {
      this.startSegment(this.nextSeq - this.pending.lines.length)
      this.options.sealed?.()
    } catch (error) {
      // What is on disk stays there; only the next batch cannot be written.
      this.noteFailure(error as Error)
    }
  }

  /** The first failure poisons the log and is told once; later ones only fail their own batches. */
  private noteFailure(error: Error): void {
    if (this.failure !== null) return
    this.failure = error
    this.listener?.failed(error)
  }

  /**
   * A write or fsync failed: every batch not yet known to be on disk fails with it (`batch`, being written;
   * those whose fsync is in flight, whatever it returns now; and the pending one).
   */
  private fail(error: Error, batch: Batch | null): void {
    this.noteFailure(error)
    const failure = new EngineError(
      'DURABILITY_FAILED',
      `write-ahead log append failed, the write was not acknowledged: ${storageTrouble(error)}`,
      { cause: error },
    )
    batch?.reject(failure)
    for (const entry of this.syncing.splice(0)) entry.batch.reject(failure)
    this.settled = this.written
    this.pending.reject(failure)
    this.pending = new Batch()
    if (this.inFlight === 0) this.wakeIdle()
  }

  private wakeIdle(): void {
    if (this.idleWaiters.length === 0) return
    const idle = this.idleWaiters.splice(0)
    for (const wake of idle) wake()
  }

  /** Waits for everything appended so far to be on disk (or to have failed). */
  async drain(): Promise<void> {
    while (this.inFlight > 0 || this.pending.lines.length > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
    }
  }

  async close(): Promise<void> {
    await this.drain()
    this.closeFds()
  }

  /** Closes the live segment's descriptors (a close that fails drops the descriptor all the same). */
  private closeFds(): void {
    for (const fd of this.syncFds) {
      try {
        closeSync(fd)
      } catch {
        // the descriptor is dropped either way
      }
    }
    this.syncFds = []
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
    this.closeFds()
  }

  /** Test hook: the log fails now, as after a failed write or fsync (the listener is told, appends throw). */
  injectFailure(error: Error): void {
    this.noteFailure(error)
  }
}
