import type { ClientBase } from 'pg'
import { decodeWalRecord, type WalRecord } from '../wal-record.js'
import { PgStoreErrors } from './pg-errors.js'

const PAGE = 10_000

export interface PgLogRead {
  lastSeq: number
  records: number
  bytes: number
  /** The log's first row above `afterSeq` was not `afterSeq + 1` (retention passed it). */
  gap: boolean
}

/**
 * Hands every record above `afterSeq` (up to `upTo`) to `visit`, in order, a page at a time. Each row is the
 * self-checking JsonLinesV2 line, so a damaged row stops the read; sequences must follow each other.
 */
export async function readPgLog(
  client: ClientBase,
  afterSeq: number,
  visit: (record: WalRecord) => void,
  upTo = Number.MAX_SAFE_INTEGER,
  maxRecords = Number.MAX_SAFE_INTEGER,
): Promise<PgLogRead> {
  let lastSeq = afterSeq
  let records = 0
  let bytes = 0
  for (;;) {
    const page = Math.min(PAGE, maxRecords - records)
    if (page <= 0) break
    const result = await client.query<{ seq: string; line: string }>(
      'SELECT seq, line FROM service_wal WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3',
      [lastSeq, upTo, page],
    )
    for (const row of result.rows) {
      const seq = Number(row.seq)
      if (seq !== lastSeq + 1) return { lastSeq, records, bytes, gap: true }
      const decoded = decodeWalRecord(row.line)
      if (!decoded.ok || decoded.record.seq !== seq) {
        throw PgStoreErrors.recoveryFailed(
          `write-ahead log row ${seq} in PostgreSQL is damaged (${decoded.ok ? 'sequence' : decoded.reason})`,
        )
      }
      visit(decoded.record)
      lastSeq = seq
      records++
      bytes += row.line.length + 1
    }
    if (result.rows.length < page) break
  }
  return { lastSeq, records, bytes, gap: false }
}
