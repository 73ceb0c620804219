import { randomUUID } from 'node:crypto'
import { closeSync, fdatasync, fstatSync, mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors.js'
import { fsyncDirectory } from './atomic-file.js'
import { writeAllAt } from './positional-write.js'
import { storageTrouble } from './storage-trouble.js'
import { errorReply, type WalIoReply } from './wal-io-task.js'
import { WalIoThread } from './wal-io-thread.js'
import { segmentName, WAL_DIR } from './wal-reader.js'
import { sealWalLine, walRecordPrefix } from './wal-record.js'

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
  /** Each record's JSON without its closing brace; sealed by its digest when written. */
  prefixes: string[] = []
  /** The sequence of its last record, set when it is sent to the I/O thread. */
  lastSeq = 0
  constructor() {
    // A caller that stops waiting (its request failed first) must not leave an unhandled rejection.
    this.durable.catch(() => {})
  }
}

export interface WalWriterOptions {
  dir: string
  requireFsync: boolean
  /** Rotate to a new segment past this size. */
  segmentBytes: number
  now: () => number
  /** False: seal, write and sync on the event loop even when fsync is required (default: an I/O thread). */
  ioThread?: boolean
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
  /** Seals, writes and syncs batches off the event loop when fsync is required (null: in-process). */
  private io: WalIoThread | null = null
  /** Given up while batches were out: the file is closed once they answered. */
  private abandoned = false
  /** Batches sent to the I/O thread, oldest first; it answers them in order. */
  private readonly inFlight: Batch[] = []
  /** The segment is full: batches wait until the ones out answered and the next segment is open. */
  private rotating = false
  /** The thread was told the live segment's descriptor and where to write (it keeps the position since). */
  private positionSent = false

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
    // Without fsync a batch is written and acknowledged in the same tick: no thread to wait for.
    if (options.requireFsync && options.ioThread !== false)
      writer.io = WalIoThread.start((reply) => writer.answered(reply))
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

  append(kind: string, body: unknown, tx: string = `tx--${randomUUID()}`): Appended {
    if (this.failure !== null) {
      throw new EngineError(
        'DURABILITY_FAILED',
        `the write-ahead log is unavailable after an earlier failure: ${this.failure.message}`,
      )
    }
    const seq = this.nextSeq++
    const batch = this.pending
    const count = batch.prefixes.push(walRecordPrefix({ seq, tx, at: this.options.now(), kind, body }))
    this.appendedAt = performance.now()
    if (this.io !== null) {
      // Sent in parts while a burst of writers works, so the thread writes and syncs meanwhile.
      if (count === POST_EVERY) this.post()
      else this.flushAtEndOfTick()
    } else if (!this.syncing) {
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
    if (this.pending.prefixes.length === 0) return
    if (this.io !== null) this.post()
    else if (!this.syncing) this.flush()
  }

  /**
   * Sends the pending records to the I/O thread at once, without waiting for the batches already out: the
   * thread takes every batch that queued during its last fdatasync into its next write and fdatasync (group
   * commit on the thread's side), so the event loop never waits for the disk and never idles for it.
   */
  private post(): void {
    if (this.rotating) return // sent once the segment turned (see answered)
    const batch = this.pending
    this.pending = new Batch()
    if (this.failure !== null) {
      this.fail(this.failure, batch)
      return
    }
    batch.lastSeq = this.nextSeq - 1
    this.inFlight.push(batch)
    const position = this.positionSent ? -1 : this.segmentSize
    this.positionSent = true
    this.io!.post({ fd: this.fd!, position, prefixes: batch.prefixes.join('\n'), sync: true })
  }

  /** The thread wrote and synced the oldest `reply.batches` batches out, or failed them. */
  private answered(reply: WalIoReply): void {
    const done = this.inFlight.splice(0, reply.batches)
    if (!reply.ok) {
      const error = Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {})
      for (const batch of done) this.fail(error, batch)
    } else if (done.length > 0) {
      this.advance(reply.bytes)
      this.fsyncs++
      this.durableSeq = (done[done.length - 1] as Batch).lastSeq
      this.segmentDurableBytes = this.segmentSize
      if (this.segmentSize >= this.options.segmentBytes) this.rotating = true
      this.listener?.durable(this.durableSeq)
      for (const batch of done) batch.resolve()
    }
    if (this.inFlight.length > 0) return
    if (this.abandoned) this.abandon()
    if (this.rotating && this.fd !== null) this.turnSegment()
    if (this.pending.prefixes.length === 0) this.wakeIdle()
  }

  /** Everything sent is on disk: the next records go to a new segment, starting with those held meanwhile. */
  private turnSegment(): void {
    this.rotating = false
    try {
      this.startSegment(this.durableSeq + 1)
      this.positionSent = false
    } catch (error) {
      // The batches are on disk; only the next ones cannot be written.
      this.noteFailure(error as Error)
    }
    if (this.pending.prefixes.length > 0) this.post()
  }

  /** In-process: writes every pending line at once and starts their fdatasync. */
  private flush(): void {
    const batch = this.pending
    const prefixes = batch.prefixes
    const lastSeq = this.nextSeq - 1
    this.pending = new Batch()
    this.splitAt = 0
    if (this.failure !== null) {
      this.fail(this.failure, batch)
      return
    }
    const started = performance.now()
    let bytes = 0
    try {
      let text = ''
      for (let i = 0; i < prefixes.length; i++) text += sealWalLine(prefixes[i]!)
      bytes = writeAllAt(this.fd!, text, this.segmentSize)
    } catch (error) {
      this.fail(error as Error, batch)
      return
    }
    if (!this.options.requireFsync) {
      this.advance(bytes)
      this.batchDurable(lastSeq, batch, this.segmentSize)
      return
    }
    this.syncing = true
    fdatasync(this.fd!, (error) =>
      this.written(
        error === null ? { ok: true, batches: 1, bytes } : errorReply(error, 1),
        batch,
        lastSeq,
        started,
      ),
    )
  }

  private advance(bytes: number): void {
    this.segmentSize += bytes
    this.bytesWritten += bytes
  }

  /** A batch's write and fdatasync answered: acknowledge it, and choose how the next cohort is batched. */
  private written(reply: WalIoReply, batch: Batch, lastSeq: number, started: number): void {
    this.syncing = false
    if (!reply.ok) {
      this.fail(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}), batch)
      return
    }
    this.advance(reply.bytes)
    this.fsyncs++
    const now = performance.now()
    const syncMs = now - started
    const workMs = this.appendedAt - this.wokeAt
    // What collected meanwhile came from the other half of a split cohort (whose work was `workMs`).
    const halves = this.pending.prefixes.length > 0
    let pipeline = false
    if (halves) pipeline = splitPays(2 * workMs, syncMs)
    else this.splitAt = splitPays(workMs, syncMs) ? Math.ceil(batch.prefixes.length / 2) : 0
    this.wokeAt = now
    this.batchDurable(lastSeq, batch, this.segmentSize)
    if (!halves || this.syncing) return
    // Sync the other half now while this one works, or let this one join it at the end of the tick.
    if (pipeline) this.flush()
    else this.flushAtEndOfTick()
  }

  private batchDurable(lastSeq: number, batch: Batch, end: number): void {
    this.durableSeq = lastSeq
    this.segmentDurableBytes = end
    try {
      if (this.fd !== null && this.segmentSize >= this.options.segmentBytes) this.startSegment(lastSeq + 1)
    } catch (error) {
      // The batch is on disk; only the next one cannot be written.
      this.noteFailure(error as Error)
    }
    this.listener?.durable(lastSeq)
    batch.resolve()
    if (this.pending.prefixes.length === 0) this.wakeIdle()
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
    while (this.syncing || this.inFlight.length > 0 || this.pending.prefixes.length > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
    }
  }

  async close(): Promise<void> {
    await this.drain()
    if (this.fd !== null) closeSync(this.fd)
    this.fd = null
    await this.io?.close()
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
    // A batch still out on the I/O thread writes to this descriptor: it is closed when that batch answers,
    // never under it (its number could be another file's by then).
    if (this.inFlight.length > 0) {
      this.abandoned = true
      return
    }
    this.io?.close().catch(() => {})
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

/** Records a burst of writers sends to the I/O thread at a time (the rest at the end of the tick). */
const POST_EVERY = 32

/**
 * Whether a cohort of writers whose work takes `workMs` between two fsyncs of `syncMs` goes faster in two
 * alternating halves: per round that costs max(work/2, sync) twice against work + sync in one batch, which
 * is less exactly when the work outlasts the fsync.
 */
export function splitPays(workMs: number, syncMs: number): boolean {
  return workMs > syncMs
}
