import { createHash } from 'node:crypto'
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { ClientBase } from 'pg'
import { EngineError } from '../../errors.js'
import { RECORD_FORMAT, TEMPORAL_RECORD_FORMAT } from '../../version.js'
import type { BackupFile, BackupSource } from '../backup/backup-source.js'
import { CHECKPOINT_DIR, checkpointName } from '../checkpoint.js'
import { MANIFEST_FILE, type Manifest, newManifest, readManifest } from '../manifest.js'
import { PayloadFile, resolvePayloadCells } from '../payload-file.js'
import { holdsTemporalValue } from '../record-format-gate.js'
import { listSegments, segmentName, WAL_DIR } from '../wal-reader.js'
import { decodeWalRecord } from '../wal-record.js'
import { readPgCheckpoint } from './pg-checkpoint.js'
import { connectClient, dropClient } from './pg-connect.js'
import { ensureSchema, FENCED_INSERT_SQL, OWNER_LOCK_KEY } from './schema.js'

// A backup of the PostgreSQL store is written in the file store's layout (manifest, checkpoint file, WAL
// segment), so one archive format restores into either store: that is the migration path between them.

const LOG_PAGE = 10_000
/** Text of one checkpoint chunk or one log insert when loading into PostgreSQL. */
const LOAD_CHARS = 1 << 20
/** The epoch a restored database starts at: the first server to own it raises it to 1. */
const RESTORED_EPOCH = 0

/**
 * Captures the store at one commit sequence inside a REPEATABLE READ snapshot (retention by a concurrent
 * checkpoint cannot remove what the snapshot sees): the newest complete image and every log row above it,
 * spooled into a scratch directory in the file store's layout. Memory stays bounded by a page; the spool is
 * removed on `release`. The archive needs each file's size before its bytes, hence the spool.
 */
export async function capturePgStore(url: string, spoolRoot = tmpdir()): Promise<BackupSource> {
  const spool = mkdtempSync(join(spoolRoot, 'service-pg-backup-'))
  const release = () => rmSync(spool, { recursive: true, force: true })
  const client = await connectClient(url, 'service-backup', () => {})
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    const owner = await client.query<{ graph_id: string }>('SELECT graph_id FROM service_owner WHERE id = 1')
    const graphId = owner.rows[0]?.graph_id
    if (graphId === undefined)
      throw new EngineError('BACKUP_UNAVAILABLE', 'the PostgreSQL store holds no graph yet')
    mkdirSync(join(spool, CHECKPOINT_DIR))
    mkdirSync(join(spool, WAL_DIR))
    const manifest = newManifest(graphId, new Date())
    let temporal = false
    const image = await spoolCheckpoint(client, spool, (line) => {
      temporal ||= holdsTemporalValue(line)
    })
    if (image !== null) manifest.components.push({ name: 'checkpoint', ...image })
    const from = image?.sequence ?? 0
    const log = await spoolLog(client, spool, from, (line) => {
      temporal ||= holdsTemporalValue(line)
    })
    await client.query('COMMIT')
    if (temporal) manifest.record_format = TEMPORAL_RECORD_FORMAT
    const files: BackupFile[] = []
    const add = (name: string) => files.push(spooled(name, join(spool, name)))
    writeText(join(spool, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`)
    add(MANIFEST_FILE)
    if (image !== null) add(`${CHECKPOINT_DIR}/${image.path}`)
    if (log.records > 0) add(`${WAL_DIR}/${segmentName(from + 1)}`)
    return { backend: 'postgres', sequence: log.lastSeq, graphId, files, release }
  } catch (error) {
    release()
    throw error
  } finally {
    dropClient(client)
  }
}

/** The newest complete image as a checkpoint file (header, record lines, trailer); null when there is none. */
async function spoolCheckpoint(
  client: ClientBase,
  spool: string,
  onLine: (line: string) => void,
): Promise<{ path: string; sequence: number; sha256: string; bytes: number } | null> {
  let out: HashedFile | null = null
  let path = ''
  try {
    const image = await readPgCheckpoint(client, onLine, {
      head(sequence, createdAt) {
        path = checkpointName(sequence)
        out = new HashedFile(join(spool, CHECKPOINT_DIR, path))
        out.write(
          `${JSON.stringify({ checkpoint: { format: RECORD_FORMAT, sequence, created_at: createdAt.toISOString() } })}\n`,
        )
      },
      chunk: (text) => (out as HashedFile | null)?.write(text),
    })
    if (image === null) return null
    const file = out as HashedFile | null
    if (file === null) throw new Error('the checkpoint image had no head')
    file.write(`${JSON.stringify({ end: { records: image.records, sha256: image.sha256 } })}\n`)
    return { path, sequence: image.sequence, ...file.close() }
  } catch (error) {
    ;(out as HashedFile | null)?.close()
    // A wrong image in the database makes the backup refuse, as a damaged archive would.
    if (error instanceof EngineError && error.code === 'STORAGE_RECOVERY_FAILED')
      throw new EngineError('BACKUP_CORRUPT', error.message)
    throw error
  }
}

/** Every log row above `afterSeq` as one segment; the rows must follow each other and check themselves. */
async function spoolLog(
  client: ClientBase,
  spool: string,
  afterSeq: number,
  onLine: (line: string) => void,
): Promise<{ lastSeq: number; records: number }> {
  const out = new HashedFile(join(spool, WAL_DIR, segmentName(afterSeq + 1)))
  let lastSeq = afterSeq
  let records = 0
  try {
    for (;;) {
      const page = await client.query<{ seq: string; line: string }>(
        'SELECT seq, line FROM service_wal WHERE seq > $1 ORDER BY seq LIMIT $2',
        [lastSeq, LOG_PAGE],
      )
      for (const row of page.rows) {
        const seq = Number(row.seq)
        if (seq !== lastSeq + 1)
          throw new EngineError('BACKUP_CORRUPT', `the log in PostgreSQL skips from ${lastSeq} to ${seq}`)
        const decoded = decodeWalRecord(row.line)
        if (!decoded.ok || decoded.record.seq !== seq)
          throw new EngineError('BACKUP_CORRUPT', `log row ${seq} in PostgreSQL is damaged`)
        out.write(`${row.line}\n`)
        onLine(row.line)
        lastSeq = seq
        records++
      }
      if (page.rows.length < LOG_PAGE) break
    }
  } finally {
    out.close()
  }
  if (records === 0) rmSync(join(spool, WAL_DIR, segmentName(afterSeq + 1)))
  return { lastSeq, records }
}

/**
 * Loads a restored store directory (verified, in the file store's layout) into an empty PostgreSQL
 * database in ONE transaction: a restore that fails or is killed leaves the database as empty as it was.
 * Refuses a database that holds a graph already or that a server owns. Returns the sequence loaded.
 */
export async function loadIntoPostgres(dir: string, url: string): Promise<number> {
  const manifest = readManifest(dir)
  if (manifest === null) throw new EngineError('BACKUP_CORRUPT', `${dir} holds no ${MANIFEST_FILE}`)
  const client = await connectClient(url, 'service-restore', () => {})
  try {
    await ensureSchema(client)
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1)', [OWNER_LOCK_KEY + 1])
    const busy = await client.query<{ free: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS free', [
      OWNER_LOCK_KEY,
    ])
    const held = await client.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM service_owner) + (SELECT count(*) FROM service_wal)
            + (SELECT count(*) FROM service_checkpoint) AS n`,
    )
    if (busy.rows[0]?.free !== true || Number(held.rows[0]?.n) > 0) {
      throw new EngineError(
        'RESTORE_TARGET_NOT_EMPTY',
        'the PostgreSQL database already holds a graph (or a server owns it); restore only into an empty one',
      )
    }
    await client.query('INSERT INTO service_owner (id, graph_id, epoch, holder) VALUES (1, $1, $2, $3)', [
      manifest.graph_id.value,
      RESTORED_EPOCH,
      'restore',
    ])
    const image = manifest.components.find((c) => c.name === 'checkpoint')
    const from =
      image === undefined ? 0 : await loadCheckpoint(client, dir, manifest, image.path, image.sequence)
    const last = await loadLog(client, dir, from)
    await client.query('COMMIT')
    return last
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    dropClient(client)
  }
}

async function loadCheckpoint(
  client: ClientBase,
  dir: string,
  manifest: Manifest,
  name: string,
  sequence: number,
): Promise<number> {
  const digest = createHash('sha256')
  // PostgreSQL keeps every value resident: payload references are resolved into the lines it stores.
  const stored = createHash('sha256')
  const payloads =
    manifest.payloads === undefined
      ? null
      : PayloadFile.open(join(dir, manifest.payloads.path), {
          durableBytes: manifest.payloads.bytes,
          cacheBytes: 0,
        }).file
  let buffer = ''
  let chunk = 0
  let records = 0
  let held: string | null = null // one line behind: the last line is the trailer
  let createdAt: string | undefined
  const flush = async () => {
    await client.query('INSERT INTO service_checkpoint_chunk (sequence, chunk, lines) VALUES ($1, $2, $3)', [
      sequence,
      chunk++,
      buffer,
    ])
    buffer = ''
  }
  for await (const line of linesOf(join(dir, CHECKPOINT_DIR, name))) {
    if (createdAt === undefined) {
      createdAt = (JSON.parse(line) as { checkpoint?: { created_at?: string } }).checkpoint?.created_at ?? ''
      continue
    }
    if (held !== null) {
      digest.update(`${held}\n`)
      const text = `${payloads === null ? held : resolvePayloadCells(held, payloads)}\n`
      stored.update(text)
      buffer += text
      records++
      if (buffer.length >= LOAD_CHARS) await flush()
    }
    held = line
  }
  if (buffer.length > 0) await flush()
  payloads?.close()
  const sha256 = digest.digest('hex')
  const trailer = JSON.parse(held ?? '{}') as { end?: { records?: number; sha256?: string } }
  if (trailer.end?.records !== records || trailer.end.sha256 !== sha256) {
    throw new EngineError('BACKUP_CORRUPT', `checkpoint ${name} does not match its trailer`)
  }
  await client.query(
    'INSERT INTO service_checkpoint (sequence, created_at, records, sha256, complete) VALUES ($1, $2, $3, $4, true)',
    [sequence, new Date(createdAt || manifest.updated_at.value), records, stored.digest('hex')],
  )
  return sequence
}

/** Every record above `afterSeq` in the directory's segments, in fenced batches under the restored epoch. */
async function loadLog(client: ClientBase, dir: string, afterSeq: number): Promise<number> {
  let expected = afterSeq + 1
  let batch: string[] = []
  let batchChars = 0
  let batchFirst = expected
  const flush = async () => {
    if (batch.length === 0) return
    const inserted = await client.query(FENCED_INSERT_SQL, [batchFirst, batch.join('\n'), RESTORED_EPOCH])
    if (inserted.rowCount !== batch.length) throw new Error('the restored log rows were not all inserted')
    batch = []
    batchChars = 0
    batchFirst = expected
  }
  for (const segment of listSegments(dir)) {
    for await (const line of linesOf(segment.path)) {
      if (line === '') continue
      const decoded = decodeWalRecord(line)
      if (!decoded.ok)
        throw new EngineError('BACKUP_CORRUPT', `${segment.name} holds a ${decoded.reason} line`)
      const { seq } = decoded.record
      if (seq < expected) continue
      if (seq > expected)
        throw new EngineError('BACKUP_CORRUPT', `the log skips from ${expected - 1} to ${seq}`)
      batch.push(line)
      batchChars += line.length
      expected++
      if (batchChars >= LOAD_CHARS) await flush()
    }
  }
  await flush()
  return expected - 1
}

function linesOf(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path, { highWaterMark: 1 << 20 }), crlfDelay: Infinity })
}

function writeText(path: string, text: string): void {
  const out = new HashedFile(path)
  out.write(text)
  out.close()
}

/** A spool file written synchronously, with its SHA-256 and size as written. */
class HashedFile {
  private readonly fd: number
  private readonly hash = createHash('sha256')
  private bytes = 0
  private open = true

  constructor(path: string) {
    this.fd = openSync(path, 'wx', 0o600)
  }

  write(text: string): void {
    const data = Buffer.from(text)
    this.hash.update(data)
    writeSync(this.fd, data)
    this.bytes += data.length
  }

  close(): { sha256: string; bytes: number } {
    if (this.open) {
      this.open = false
      closeSync(this.fd)
    }
    return { sha256: this.hash.copy().digest('hex'), bytes: this.bytes }
  }
}

function spooled(name: string, path: string): BackupFile {
  const size = statSync(path).size
  return {
    name,
    size,
    read: () => createReadStream(path, { highWaterMark: 1 << 20 }),
  }
}
