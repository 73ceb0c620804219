import { randomUUID } from 'node:crypto'
import { closeSync, fdatasync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors.js'
import { fsyncDirectory } from './atomic-file.js'
import { segmentName, WAL_DIR } from './wal-reader.js'
import { encodeWalRecord } from './wal-record.js'

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
  /** Rotate to a new segment past this size. */
  segmentBytes: number
  now: () => number
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
 * and every later append fails too.
 *
 * Pipelining: the write of a batch is synchronous (page cache) and only the fdatasync runs on the thread
 * pool, so the next batch collects while one is being synced. When a whole cohort of writers comes back
 * together and its work took longer than an fsync, the first half is started on its own, so the disk syncs
 * one half while the CPU prepares the other instead of the two taking turns.
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
  /** When the current cohort started appending onto an idle disk (-1: it did not), for the split decision. */
  private cohortStart = -1
  private readonly idleWaiters: (() => void)[] = []
  private failure: Error | null = null
  private segmentSize = 0
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
    this.fd = openSync(path, 'a')
    this.segmentSize = fstatSync(this.fd).size
    fsyncDirectory(join(this.options.dir, WAL_DIR))
  }

  append(kind: string, body: unknown, tx: string = `tx--${randomUUID()}`): Appended {
    if (this.failure !== null) {
      throw new EngineError(
        'DURABILITY_FAILED',
        `the write-ahead log is unavailable after an earlier failure: ${this.failure.message}`,
        'unavailable',
      )
    }
    const seq = this.nextSeq++
    const batch = this.pending
    const count = batch.lines.push(encodeWalRecord({ seq, tx, at: this.options.now(), kind, body }))
    if (!this.syncing) {
      if (count === 1) this.cohortStart = performance.now()
      if (count === this.splitAt) this.flush()
      else if (!this.scheduled) {
        // Let every append of this tick join the same write.
        this.scheduled = true
        setImmediate(this.endOfTick)
      }
    }
    return { seq, tx, durable: batch.durable }
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
      bytes = writeAll(this.fd!, lines.length === 1 ? lines[0]! : lines.join(''))
    } catch (error) {
      this.fail(error as Error, batch)
      return
    }
    this.segmentSize += bytes
    this.bytesWritten += bytes
    if (!this.options.requireFsync) {
      this.batchDurable(lastSeq, batch)
      return
    }
    this.syncing = true
    const started = performance.now()
    const cohortMs = this.cohortStart < 0 ? 0 : started - this.cohortStart
    this.cohortStart = -1
    fdatasync(this.fd!, (error) => {
      this.syncing = false
      if (error !== null) {
        this.fail(error, batch)
        return
      }
      this.fsyncs++
      const syncMs = performance.now() - started
      const more = this.pending.lines.length > 0
      // A cohort that comes back alone (nothing collected meanwhile) may be split on its next round.
      if (!more) this.splitAt = cohortSplit(lines.length, cohortMs, syncMs)
      this.batchDurable(lastSeq, batch)
      // What collected meanwhile is the next batch: its writers are all waiting, so sync it now.
      if (more && !this.syncing) this.flush()
    })
  }

  private batchDurable(lastSeq: number, batch: Batch): void {
    this.durableSeq = lastSeq
    try {
      if (this.segmentSize >= this.options.segmentBytes) this.startSegment(lastSeq + 1)
    } catch (error) {
      // The batch is on disk; only the next one cannot be written.
      this.failure ??= error as Error
    }
    this.listener?.durable(lastSeq)
    batch.resolve()
    if (this.pending.lines.length === 0) this.wakeIdle()
  }

  private fail(error: Error, batch: Batch): void {
    this.failure ??= error
    this.listener?.failed(error)
    const failure = new EngineError(
      'DURABILITY_FAILED',
      `write-ahead log append failed: ${error.message}`,
      'unavailable',
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

  /** Test hook: make the next write fail as a broken disk would. */
  injectFailure(error: Error): void {
    this.failure = error
  }
}

/**
 * Where to split the next round of a cohort of `records` writers that came back together after one fsync
 * (0: do not split). If their work took longer than the fsync, syncing the first half while the second half
 * works hides the fsync behind the work, and the halves keep alternating; otherwise one batch per fsync is
 * the faster schedule.
 */
export function cohortSplit(records: number, cohortMs: number, syncMs: number): number {
  return records >= 2 && cohortMs > syncMs ? Math.ceil(records / 2) : 0
}

/** Writes all of `text` (a short write is retried from where it stopped); returns the bytes written. */
function writeAll(fd: number, text: string): number {
  const written = writeSync(fd, text)
  const total = Buffer.byteLength(text)
  if (written === total) return total
  const rest = Buffer.from(text).subarray(written)
  for (let offset = 0; offset < rest.length; ) offset += writeSync(fd, rest, offset)
  return total
}
