import { fdatasyncSync } from 'node:fs'
import { writeAllAt } from './positional-write.js'
import { sealWalLine } from './wal-record.js'

/** One WAL batch for the log's I/O thread: the records' prefixes, where they go, and whether to fdatasync. */
export interface WalIoJob {
  fd: number
  position: number
  prefixes: string[]
  sync: boolean
}

export type WalIoReply = { ok: true; bytes: number } | { ok: false; message: string; code?: string }

/**
 * Seals, writes and (when asked) fdatasyncs one batch: the part of a durable write the event loop need not
 * do itself. The same bytes the writer writes in-process (`sealWalLine` over the same prefixes).
 */
export function writeWalBatch(job: WalIoJob): WalIoReply {
  try {
    const prefixes = job.prefixes
    let text = ''
    for (let i = 0; i < prefixes.length; i++) text += sealWalLine(prefixes[i] as string)
    const bytes = writeAllAt(job.fd, text, job.position)
    if (job.sync) fdatasyncSync(job.fd)
    return { ok: true, bytes }
  } catch (error) {
    return errorReply(error as Error)
  }
}

/** A failed write or sync as it crosses threads: its message and errno code (what storage faults read). */
export function errorReply(error: Error): WalIoReply {
  const code = (error as NodeJS.ErrnoException).code
  return code === undefined
    ? { ok: false, message: error.message }
    : { ok: false, message: error.message, code }
}
