import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
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

interface Waiter {
  resolve: () => void
  reject: (error: Error) => void
}

export interface WalWriterOptions {
  dir: string
  requireFsync: boolean
  /** Rotate to a new segment past this size. */
  segmentBytes: number
  now: () => number
}

/**
 * Appends records to the live segment with group commit: every record appended while a write+fsync is in
 * flight joins the next one, so concurrent writers share one fsync. After any write or fsync failure the
 * log is poisoned (fail-stop, as databases do after a failed fsync: the page cache can no longer be trusted)
 * and every later append fails too.
 */
export class WalWriter {
  private handle: FileHandle | null = null
  private pendingLines: string[] = []
  private pendingWaiters: Waiter[] = []
  private flushing: Promise<void> | null = null
  private failure: Error | null = null
  private segmentSize = 0
  private nextSeq: number
  /** Highest sequence known to be on disk. */
  durableSeq: number
  bytesWritten = 0
  fsyncs = 0

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
    await writer.startSegment(lastSeq + 1)
    return writer
  }

  get lastSeq(): number {
    return this.nextSeq - 1
  }

  get failed(): Error | null {
    return this.failure
  }

  /** Starts a fresh segment named by its first sequence (recovery truncated or sealed the previous ones). */
  private async startSegment(firstSeq: number): Promise<void> {
    await this.handle?.close()
    const path = join(this.options.dir, WAL_DIR, segmentName(firstSeq))
    this.handle = await open(path, 'a')
    this.segmentSize = (await this.handle.stat()).size
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
    this.pendingLines.push(encodeWalRecord({ seq, tx, at: this.options.now(), kind, body }))
    const durable = new Promise<void>((resolve, reject) => this.pendingWaiters.push({ resolve, reject }))
    // Let every append of this tick join the same write.
    if (this.flushing === null)
      this.flushing = new Promise((r) => setImmediate(r)).then(() => this.flushLoop())
    return { seq, tx, durable }
  }

  private async flushLoop(): Promise<void> {
    while (this.pendingLines.length > 0) {
      const lines = this.pendingLines
      const waiters = this.pendingWaiters
      const lastSeq = this.nextSeq - 1
      this.pendingLines = []
      this.pendingWaiters = []
      try {
        if (this.failure !== null) throw this.failure
        const data = Buffer.from(lines.join(''), 'utf8')
        await this.handle!.write(data, 0, data.length)
        if (this.options.requireFsync) {
          await this.handle!.datasync()
          this.fsyncs++
        }
        this.segmentSize += data.length
        this.bytesWritten += data.length
        this.durableSeq = lastSeq
        for (const w of waiters) w.resolve()
        if (this.segmentSize >= this.options.segmentBytes) await this.startSegment(lastSeq + 1)
      } catch (error) {
        this.failure ??= error as Error
        const failure = new EngineError(
          'DURABILITY_FAILED',
          `write-ahead log append failed: ${(error as Error).message}`,
          'unavailable',
          { cause: error },
        )
        for (const w of waiters) w.reject(failure)
        for (const w of this.pendingWaiters) w.reject(failure)
        this.pendingWaiters = []
        this.pendingLines = []
      }
    }
    this.flushing = null
  }

  /** Waits for everything appended so far to be on disk. */
  async drain(): Promise<void> {
    while (this.flushing !== null) await this.flushing
  }

  async close(): Promise<void> {
    await this.drain()
    await this.handle?.close()
    this.handle = null
  }

  /** Test hook: make the next write fail as a broken disk would. */
  injectFailure(error: Error): void {
    this.failure = error
  }
}
