import { createHash, type Hash } from 'node:crypto'
import { closeSync, fsyncSync, openSync, unlinkSync } from 'node:fs'
import type { ColumnLine } from './column-line.js'
import { ColumnLineBytes } from './column-line-bytes.js'
import { writeAllAt } from './positional-write.js'

/**
 * One checkpoint line as the engine hands it over: JSON text, or a line of columns whose numeric ones are
 * typed arrays. A column line crosses to the encoding worker as transferable buffers (a batch of thousands
 * of relationships is a few buffers, not thousands of cloned objects) and becomes a JSON object there, its
 * fields in the order given: a string field is JSON text as is, a typed array a JSON array of its numbers.
 */
export type CheckpointPiece = string | ColumnLine | typeof SLICE_POINT

/**
 * Not a line: a point inside a line's walk (every few dozen records) where the writer may yield to the event
 * loop when its slice is spent, so no slice waits for a whole batch of thousands of records to be walked.
 * The walk resumes where it was; the batch, and the file, are the same.
 */
export const SLICE_POINT: unique symbol = Symbol('checkpoint slice point')

/** What the file writer is told for a run of lines: JSON text already joined, or one column line. */
export type EncodedChunk = { text: string; records: number } | ColumnLine

/** Checkpoint file facts for the manifest. */
export interface CheckpointFileFacts {
  sha256: string
  bytes: number
  records: number
}

export function isColumnLine(piece: CheckpointPiece | EncodedChunk): piece is ColumnLine {
  return typeof piece === 'object' && 'fields' in piece
}

/**
 * Writes a checkpoint file at explicit offsets with its two digests: one over the whole file (the manifest's)
 * and one over the record lines (the trailer's). Used in the encoding worker, and in-process when no worker
 * is available; either way the bytes are the same.
 */
export class CheckpointFileWriter {
  private readonly fd: number
  private readonly fileHash: Hash = createHash('sha256')
  private readonly recordHash: Hash = createHash('sha256')
  private bytes = 0
  private records = 0
  private closed = false
  private readonly columnBytes = new ColumnLineBytes()

  constructor(
    private readonly path: string,
    header: string,
  ) {
    this.fd = openSync(path, 'w', 0o600)
    try {
      this.write(`${header}\n`)
    } catch (error) {
      this.abandon()
      throw error
    }
  }

  /** Appends record lines: a run of joined text lines (each ending in a newline) or one column line. */
  add(chunk: EncodedChunk): void {
    // each line's bytes are made once, for both digests and the write
    if (isColumnLine(chunk)) {
      this.writeRecords(this.columnBytes.encode(chunk))
      this.records++
      return
    }
    this.writeRecords(Buffer.from(chunk.text, 'utf8'))
    this.records += chunk.records
  }

  private writeRecords(data: Buffer): void {
    this.recordHash.update(data)
    this.write(data)
  }

  private write(data: Buffer | string): void {
    if (typeof data === 'string') data = Buffer.from(data, 'utf8')
    writeAllAt(this.fd, data, this.bytes)
    this.fileHash.update(data)
    this.bytes += data.length
  }

  /** Writes the trailer; the file's facts are final from here (then `fsync` the descriptor and `close`). */
  seal(): CheckpointFileFacts {
    this.write(
      `${JSON.stringify({ end: { records: this.records, sha256: this.recordHash.digest('hex') } })}\n`,
    )
    return { sha256: this.fileHash.digest('hex'), bytes: this.bytes, records: this.records }
  }

  get descriptor(): number {
    return this.fd
  }

  close(): void {
    this.closed = true
    closeSync(this.fd)
  }

  /** Seals, fsyncs and closes in one go (in the worker, where blocking is fine). */
  finish(): CheckpointFileFacts {
    const facts = this.seal()
    fsyncSync(this.fd)
    this.close()
    return facts
  }

  /** Closes and removes the temp file (best effort: the storage may be failing). */
  abandon(): void {
    if (!this.closed) {
      this.closed = true
      try {
        closeSync(this.fd)
      } catch {
        // the descriptor is dropped either way
      }
    }
    try {
      unlinkSync(this.path)
    } catch {
      // left for the next checkpoint of the same sequence to overwrite
    }
  }
}
