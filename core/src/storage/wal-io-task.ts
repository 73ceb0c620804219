import { fdatasyncSync } from 'node:fs'
import { writeAllAt } from './positional-write.js'
import { sealWalLine } from './wal-record.js'

/**
 * One WAL batch for the log's I/O thread: the records' prefixes, the descriptor, and where to write them: a
 * position for the first batch of a segment, -1 for "after the previous batch" (the thread keeps count).
 */
export interface WalIoJob {
  fd: number
  position: number
  /** The records' prefixes joined by newlines (one flat string crosses threads cheaper than an array; a
   * prefix is JSON, which has no raw newline). */
  prefixes: string
  sync: boolean
}

/** The answer for the oldest `batches` batches sent: written (and synced), or failed. */
export type WalIoReply =
  | { ok: true; batches: number; bytes: number }
  | { ok: false; batches: number; message: string; code?: string }

/**
 * The log's side of the I/O thread: seals, writes and fdatasyncs batches in the order they were sent, every
 * batch that queued meanwhile in one write and one fdatasync. The same bytes the writer writes in-process
 * (`sealWalLine` over the same prefixes). After a failure every later batch fails too: the file can no
 * longer be trusted (see WalWriter).
 */
export class WalBatchWriter {
  private position = 0
  private failure: WalIoReply | null = null

  write(jobs: readonly WalIoJob[]): WalIoReply {
    if (this.failure !== null) return { ...this.failure, batches: jobs.length }
    try {
      const first = jobs[0] as WalIoJob
      if (first.position >= 0) this.position = first.position
      let text = ''
      for (const job of jobs) for (const prefix of job.prefixes.split('\n')) text += sealWalLine(prefix)
      const bytes = writeAllAt(first.fd, text, this.position)
      this.position += bytes
      if (jobs.some((job) => job.sync)) fdatasyncSync(first.fd)
      return { ok: true, batches: jobs.length, bytes }
    } catch (error) {
      this.failure = errorReply(error as Error, jobs.length)
      return this.failure
    }
  }
}

/** A failed write or sync as it crosses threads: its message and errno code (what storage faults read). */
export function errorReply(error: Error, batches: number): WalIoReply {
  const code = (error as NodeJS.ErrnoException).code
  const reply = { ok: false as const, batches, message: error.message }
  return code === undefined ? reply : { ...reply, code }
}
