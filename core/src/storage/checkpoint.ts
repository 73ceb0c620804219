import { createHash } from 'node:crypto'
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { RECORD_FORMAT } from '../version.js'
import { fsyncDirectory } from './atomic-file.js'

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
 */
export function writeCheckpoint(
  dir: string,
  sequence: number,
  lines: Iterable<string>,
  now: Date,
): CheckpointFile {
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
  const put = (text: string) => {
    buffer += text
    if (buffer.length >= WRITE_CHUNK) flush()
  }
  const flush = () => {
    const data = Buffer.from(buffer, 'utf8')
    writeSync(fd, data)
    fileHash.update(data)
    bytes += data.length
    buffer = ''
  }
  try {
    put(
      `${JSON.stringify({ checkpoint: { format: RECORD_FORMAT, sequence, created_at: now.toISOString() } })}\n`,
    )
    for (const line of lines) {
      const text = `${line}\n`
      recordHash.update(text)
      put(text)
      records++
    }
    put(`${JSON.stringify({ end: { records, sha256: recordHash.digest('hex') } })}\n`)
    flush()
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temp, join(folder, name))
  fsyncDirectory(folder)
  return { name, sequence, sha256: fileHash.digest('hex'), bytes, records }
}

export type CheckpointRead =
  | { ok: true; sequence: number; records: number; lines: string[] }
  | { ok: false; reason: string }

/** Reads and fully validates a checkpoint (file digest from the manifest, header, trailer, record digest). */
export function readCheckpoint(dir: string, name: string, expectedSha256: string): CheckpointRead {
  const path = join(dir, CHECKPOINT_DIR, name)
  if (!existsSync(path)) return { ok: false, reason: `checkpoint ${name} is missing` }
  const data = readFileSync(path)
  if (createHash('sha256').update(data).digest('hex') !== expectedSha256) {
    return { ok: false, reason: `checkpoint ${name} does not match the digest in the manifest` }
  }
  const lines = data.toString('utf8').split('\n')
  if (lines.at(-1) === '') lines.pop()
  try {
    const header = JSON.parse(lines[0] ?? '') as { checkpoint?: { sequence?: number; format?: string } }
    const trailer = JSON.parse(lines.at(-1) ?? '') as { end?: { records?: number; sha256?: string } }
    const body = lines.slice(1, -1)
    if (header.checkpoint?.format !== RECORD_FORMAT || !Number.isSafeInteger(header.checkpoint.sequence)) {
      return { ok: false, reason: `checkpoint ${name} has a bad header` }
    }
    if (trailer.end?.records !== body.length) return { ok: false, reason: `checkpoint ${name} is truncated` }
    return { ok: true, sequence: header.checkpoint.sequence as number, records: body.length, lines: body }
  } catch {
    return { ok: false, reason: `checkpoint ${name} is malformed` }
  }
}

export function removeCheckpoint(dir: string, name: string): void {
  try {
    unlinkSync(join(dir, CHECKPOINT_DIR, name))
  } catch {
    // already gone
  }
}
