import { createHash } from 'node:crypto'
import type { ClientBase } from 'pg'
import { PgStoreErrors } from './pg-errors.js'

const CHUNK_CHARS = 1 << 20
const CHUNKS_PER_READ = 16

export interface PgCheckpointInfo {
  sequence: number
  records: number
  createdAtMs: number
  /** Characters of the image's lines: its size, for when the next checkpoint is due. */
  chars: number
}

/**
 * Writes the image at `sequence` as chunks of JSON lines, then makes it current in one transaction that is
 * conditional on the writer's epoch: a fenced primary cannot replace the image. The same transaction keeps
 * the previous generation and drops the log rows and images older than it (retention, as the file store
 * compacts segments), so the log stays bounded.
 */
export async function writePgCheckpoint(
  client: ClientBase,
  epoch: number,
  sequence: number,
  lines: Iterable<string>,
  pause: () => Promise<void>,
): Promise<PgCheckpointInfo> {
  await client.query('DELETE FROM service_checkpoint_chunk WHERE sequence = $1', [sequence])
  const digest = createHash('sha256')
  let buffer = ''
  let chunk = 0
  let records = 0
  let chars = 0
  const flush = async () => {
    chars += buffer.length
    await client.query('INSERT INTO service_checkpoint_chunk (sequence, chunk, lines) VALUES ($1, $2, $3)', [
      sequence,
      chunk++,
      buffer,
    ])
    buffer = ''
  }
  for (const line of lines) {
    const text = `${line}\n`
    digest.update(text)
    buffer += text
    records++
    if (buffer.length >= CHUNK_CHARS) {
      await flush()
      await pause()
    }
  }
  if (buffer.length > 0) await flush()
  const createdAt = new Date()
  await client.query('BEGIN')
  try {
    const owner = await client.query(
      'SELECT epoch FROM service_owner WHERE id = 1 AND epoch = $1 FOR SHARE',
      [epoch],
    )
    if (owner.rowCount !== 1)
      throw PgStoreErrors.fenced('the checkpoint was not made current: another primary took over')
    await client.query(
      `INSERT INTO service_checkpoint (sequence, created_at, records, sha256, complete) VALUES ($1, $2, $3, $4, true)
       ON CONFLICT (sequence) DO UPDATE SET created_at = $2, records = $3, sha256 = $4, complete = true`,
      [sequence, createdAt, records, digest.digest('hex')],
    )
    const previous = await client.query<{ sequence: string }>(
      'SELECT sequence FROM service_checkpoint WHERE complete AND sequence < $1 ORDER BY sequence DESC LIMIT 1',
      [sequence],
    )
    const keep = previous.rows[0] === undefined ? sequence : Number(previous.rows[0].sequence)
    await client.query('DELETE FROM service_checkpoint WHERE sequence < $1', [keep])
    await client.query('DELETE FROM service_checkpoint_chunk WHERE sequence < $1', [keep])
    await client.query('DELETE FROM service_wal WHERE seq <= $1', [keep])
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
  return { sequence, records, createdAtMs: createdAt.getTime(), chars }
}

/**
 * Loads the newest complete image, streaming its chunks into `onLine`; null when there is none. The digest
 * and record count are checked at the end (PostgreSQL checks its own pages; this catches a wrong image), and
 * a mismatch after lines were applied is a hard failure, as with a file checkpoint.
 */
export async function readPgCheckpoint(
  client: ClientBase,
  onLine: (line: string) => void,
  /** For a copy of the image (a backup): its head before any chunk, then each chunk's text as stored. */
  copy?: { head(sequence: number, createdAt: Date): void; chunk(text: string): void },
): Promise<(PgCheckpointInfo & { sha256: string }) | null> {
  const head = await client.query<{ sequence: string; records: string; sha256: string; created_at: Date }>(
    'SELECT sequence, records, sha256, created_at FROM service_checkpoint WHERE complete ORDER BY sequence DESC LIMIT 1',
  )
  const row = head.rows[0]
  if (row === undefined) return null
  const sequence = Number(row.sequence)
  copy?.head(sequence, row.created_at)
  const digest = createHash('sha256')
  let records = 0
  let chars = 0
  for (let from = 0; ; from += CHUNKS_PER_READ) {
    const chunks = await client.query<{ lines: string }>(
      'SELECT lines FROM service_checkpoint_chunk WHERE sequence = $1 AND chunk >= $2 AND chunk < $3 ORDER BY chunk',
      [sequence, from, from + CHUNKS_PER_READ],
    )
    for (const { lines } of chunks.rows) {
      digest.update(lines)
      chars += lines.length
      copy?.chunk(lines)
      let start = 0
      for (let nl = lines.indexOf('\n'); nl !== -1; nl = lines.indexOf('\n', start)) {
        onLine(lines.slice(start, nl))
        records++
        start = nl + 1
      }
    }
    if (chunks.rows.length < CHUNKS_PER_READ) break
  }
  if (records !== Number(row.records) || digest.digest('hex') !== row.sha256) {
    throw PgStoreErrors.recoveryFailed(
      `checkpoint at sequence ${sequence} in PostgreSQL does not match its digest`,
    )
  }
  return { sequence, records, createdAtMs: row.created_at.getTime(), sha256: row.sha256, chars }
}
