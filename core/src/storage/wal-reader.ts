import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { decodeWalRecord, type WalRecord } from './wal-record.js'

export const WAL_DIR = 'wal'
const SEGMENT = /^segment-(\d{20})\.jsonl$/

export const segmentName = (firstSeq: number) => `segment-${String(firstSeq).padStart(20, '0')}.jsonl`

export interface SegmentFile {
  name: string
  path: string
  firstSeq: number
  bytes: number
}

export function listSegments(dir: string): SegmentFile[] {
  const walDir = join(dir, WAL_DIR)
  if (!existsSync(walDir)) return []
  return readdirSync(walDir)
    .map((name) => ({ name, match: SEGMENT.exec(name) }))
    .filter((e): e is { name: string; match: RegExpExecArray } => e.match !== null)
    .map(({ name, match }) => {
      const path = join(walDir, name)
      return { name, path, firstSeq: Number(match[1]), bytes: statSync(path).size }
    })
    .sort((a, b) => a.firstSeq - b.firstSeq)
}

/** Where reading stopped, and why, so recovery can truncate or refuse. */
export interface WalDamage {
  kind: 'torn_tail' | 'checksum' | 'malformed' | 'gap'
  segment: SegmentFile
  /** Byte offset in the segment of the first bad line. */
  offset: number
  detail: string
}

export interface WalScan {
  lastSeq: number
  records: number
  damage: WalDamage | null
}

/**
 * Reads every segment in order, handing each valid record above `afterSeq` to `visit`. Stops at the first
 * damage: a torn final line (the only damage a crash can cause), a checksum or format failure, or a gap in
 * the sequence. The caller decides whether that is fatal.
 */
export function scanWal(dir: string, afterSeq: number, visit: (record: WalRecord) => void): WalScan {
  const segments = listSegments(dir)
  let expected: number | null = null
  let records = 0
  let lastSeq = afterSeq
  for (let s = 0; s < segments.length; s++) {
    const segment = segments[s]!
    // A segment wholly at or below `afterSeq` (its successor starts at or below afterSeq + 1) holds nothing
    // to replay: the checkpoint covers it, so it is not even read.
    const next = segments[s + 1]
    if (next !== undefined && next.firstSeq - 1 <= afterSeq) continue
    const text = readFileSync(segment.path, 'utf8')
    const isLast = s === segments.length - 1
    let offset = 0
    while (offset < text.length) {
      const newline = text.indexOf('\n', offset)
      const line = newline === -1 ? text.slice(offset) : text.slice(offset, newline)
      const decoded = decodeWalRecord(line)
      const byteOffset = () => Buffer.byteLength(text.slice(0, offset))
      // A crash can only tear the last line of the last segment: an append writes one whole line, and it is
      // acknowledged only after the write and the fsync, so a line without its newline was never acknowledged.
      const finalLine = isLast && (newline === -1 || newline === text.length - 1)
      if (newline === -1 || !decoded.ok) {
        const kind = finalLine ? 'torn_tail' : decoded.ok ? 'malformed' : decoded.reason
        return {
          lastSeq,
          records,
          damage: {
            kind,
            segment,
            offset: byteOffset(),
            detail: `${kind} at byte ${byteOffset()} of ${segment.name}`,
          },
        }
      }
      const record = decoded.record
      if (
        (expected !== null && record.seq !== expected) ||
        (record.seq > afterSeq && record.seq !== lastSeq + 1)
      ) {
        const want = expected ?? lastSeq + 1
        return {
          lastSeq,
          records,
          damage: {
            kind: 'gap',
            segment,
            offset: byteOffset(),
            detail: `expected sequence ${want}, found ${record.seq} in ${segment.name}`,
          },
        }
      }
      expected = record.seq + 1
      if (record.seq > afterSeq) {
        visit(record)
        lastSeq = record.seq
        records++
      }
      offset = newline + 1
    }
  }
  return { lastSeq, records, damage: null }
}
