import { createHash } from 'node:crypto'
import { closeSync, existsSync, fsync, mkdirSync, openSync, readSync, renameSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { RECORD_FORMAT } from '../version.js'
import { fsyncDirectory } from './atomic-file.js'
import { writeAllAt } from './positional-write.js'

export const CHECKPOINT_DIR = 'checkpoints'
export const checkpointName = (seq: number) => `checkpoint-${String(seq).padStart(20, '0')}.jsonl`

export interface CheckpointFile {
  name: string
  sequence: number
  sha256: string
  bytes: number
  records: number
}

const WRITE_CHUNK = 1 << 20

/**
 * Writes a consistent JSON Lines image at `sequence`: a header line, one line per record, and a trailer
 * with the record count and a digest of the record lines. Written beside the live one under a temp name,
 * fsynced, then renamed into place, so a crash leaves the previous checkpoint intact.
 *
 * After every megabyte it waits for `pause` (the engine yields to the event loop there, so reads go on while
 * a large image is written); the caller keeps `lines` unchanged across those pauses. The file's fsync runs
 * on the thread pool for the same reason.
 */
export async function writeCheckpoint(
  dir: string,
  sequence: number,
  lines: Iterable<string>,
  now: Date,
  pause: () => Promise<void> = () => Promise.resolve(),
  /** Throws to abandon the file before it is renamed into place (it is removed). */
  beforeRename: () => void = () => {},
): Promise<CheckpointFile> {
  const folder = join(dir, CHECKPOINT_DIR)
  mkdirSync(folder, { recursive: true })
  const name = checkpointName(sequence)
  const temp = join(folder, `${name}.tmp`)
  const fd = openSync(temp, 'w', 0o600)
  const fileHash = createHash('sha256')
  const recordHash = createHash('sha256')
  let bytes = 0
  let records = 0
  let buffer = ''
  const flush = () => {
    const data = Buffer.from(buffer, 'utf8')
    writeAllAt(fd, data, bytes)
    fileHash.update(data)
    bytes += data.length
    buffer = ''
  }
  try {
    buffer = `${JSON.stringify({ checkpoint: { format: RECORD_FORMAT, sequence, created_at: now.toISOString() } })}\n`
    for (const line of lines) {
      const text = `${line}\n`
      recordHash.update(text)
      buffer += text
      records++
      if (buffer.length >= WRITE_CHUNK) {
        flush()
        await pause()
      }
    }
    buffer += `${JSON.stringify({ end: { records, sha256: recordHash.digest('hex') } })}\n`
    flush()
    await promisify(fsync)(fd)
  } catch (error) {
    closeSync(fd)
    removeTemp(temp)
    throw error
  }
  closeSync(fd)
  try {
    beforeRename()
    renameSync(temp, join(folder, name))
  } catch (error) {
    removeTemp(temp)
    throw error
  }
  fsyncDirectory(folder)
  return { name, sequence, sha256: fileHash.digest('hex'), bytes, records }
}

export type CheckpointRead = { ok: true; sequence: number; records: number } | { ok: false; reason: string }

const CHUNK = 16 * 1024 * 1024

/** Calls `onChunk` with consecutive chunks of a file, never holding more than one chunk. */
function readChunks(path: string, onChunk: (chunk: Buffer) => void): void {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.allocUnsafe(CHUNK)
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null)
      if (n === 0) return
      onChunk(buffer.subarray(0, n))
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * Reads and fully validates a checkpoint, streaming: a checkpoint of millions of records is far larger than
 * one JavaScript string may be. First the file digest from the manifest is checked (nothing is applied from
 * a file that does not match), then the lines are parsed one at a time; the header and the trailer's record
 * count are checked too. `onLine` receives each record line in order.
 */
export function readCheckpoint(
  dir: string,
  name: string,
  expectedSha256: string,
  onLine: (line: string) => void = () => {},
): CheckpointRead {
  const path = join(dir, CHECKPOINT_DIR, name)
  if (!existsSync(path)) return { ok: false, reason: `checkpoint ${name} is missing` }
  const hash = createHash('sha256')
  readChunks(path, (chunk) => hash.update(chunk))
  if (hash.digest('hex') !== expectedSha256) {
    return { ok: false, reason: `checkpoint ${name} does not match the digest in the manifest` }
  }
  let header: { checkpoint?: { sequence?: number; format?: string } } | null = null
  let held: string | null = null // one line behind, so the last one (the trailer) is never applied
  let records = 0
  let carry: Buffer = Buffer.alloc(0)
  const take = (line: string) => {
    if (header === null) {
      header = JSON.parse(line) as typeof header
      return
    }
    if (held !== null) {
      onLine(held)
      records++
    }
    held = line
  }
  try {
    readChunks(path, (chunk) => {
      let data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk
      let start = 0
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        take(data.toString('utf8', start, nl))
        start = nl + 1
      }
      data = data.subarray(start)
      carry = Buffer.from(data)
    })
    if (carry.length > 0) take(carry.toString('utf8'))
    const h = header as { checkpoint?: { sequence?: number; format?: string } } | null
    if (h?.checkpoint?.format !== RECORD_FORMAT || !Number.isSafeInteger(h.checkpoint.sequence)) {
      return { ok: false, reason: `checkpoint ${name} has a bad header` }
    }
    const trailer = JSON.parse(held ?? '') as { end?: { records?: number } }
    if (trailer.end?.records !== records) return { ok: false, reason: `checkpoint ${name} is truncated` }
    return { ok: true, sequence: h.checkpoint.sequence as number, records }
  } catch (error) {
    // Once lines were applied a fallback would build on a half-loaded graph: that is a hard failure.
    if (records > 0) throw error
    return { ok: false, reason: `checkpoint ${name} is malformed` }
  }
}

/** A failed checkpoint leaves no temp file behind (best effort: the storage may be failing). */
function removeTemp(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // left for the next checkpoint of the same sequence to overwrite
  }
}

export function removeCheckpoint(dir: string, name: string): void {
  try {
    unlinkSync(join(dir, CHECKPOINT_DIR, name))
  } catch {
    // already gone
  }
}
