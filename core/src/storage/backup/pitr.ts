import { createHash } from 'node:crypto'
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../../errors.js'
import { listArchive, recordedDigest } from '../wal-archive.js'
import { scanWal, segmentName, WAL_DIR } from '../wal-reader.js'
import { decodeWalRecord } from '../wal-record.js'

/** Where a point-in-time restore stops: a commit sequence, or the last commit at or before a time. */
export type RestorePoint = { untilSeq: number } | { untilTime: number }

export interface ArchiveReplay {
  /** The sequence the restored store stands at. */
  sequence: number
  /** Commit time of that sequence (ms since the epoch), or null when no archived record was added. */
  at: number | null
  records: number
}

const gap = (message: string) => new EngineError('WAL_ARCHIVE_GAP', message)
const corrupt = (message: string) => new EngineError('WAL_ARCHIVE_CORRUPT', message)

/**
 * Extends a restored (staged) store past its backup's sequence from the WAL archive: checks each archived
 * segment's SHA-256 against its sidecar, then copies every record above `fromSeq` up to the restore point, as
 * written, into one new segment starting at `fromSeq + 1`. A missing sequence is a gap and a failing
 * digest or line is damage: both refuse the restore, naming the segment; neither is ever skipped. A
 * sequence past the archive's end is refused too; a time past it stops at the archive's end.
 */
export function replayArchive(
  archiveDir: string,
  stagingDir: string,
  fromSeq: number,
  point: RestorePoint,
): ArchiveReplay {
  const lastAt = lastCommitTime(stagingDir, fromSeq)
  if ('untilSeq' in point ? point.untilSeq < fromSeq : lastAt !== null && point.untilTime < lastAt) {
    throw new EngineError(
      'RESTORE_POINT_BEFORE_BACKUP',
      `the backup already stands past the restore point (sequence ${fromSeq}${lastAt === null ? '' : `, committed ${new Date(lastAt).toISOString()}`}); restore an older backup`,
    )
  }
  const segments = listArchive(archiveDir)
  let expected = fromSeq + 1
  let at: number | null = null
  let records = 0
  const fd = openSync(join(stagingDir, WAL_DIR, segmentName(fromSeq + 1)), 'w')
  try {
    outer: for (const [i, segment] of segments.entries()) {
      const next = segments[i + 1]
      if (next !== undefined && next.firstSeq <= expected) continue
      if (segment.firstSeq > expected) {
        throw gap(
          `the archive has no segment holding sequence ${expected} (${segment.name} starts at ${segment.firstSeq})`,
        )
      }
      const bytes = readFileSync(segment.path)
      const digest = recordedDigest(segment)
      if (digest === null)
        throw corrupt(`${segment.name} has no ${segment.name}.sha256 sidecar in the archive`)
      if (createHash('sha256').update(bytes).digest('hex') !== digest) {
        throw corrupt(`${segment.name} fails its checksum in the archive`)
      }
      const text = bytes.toString('utf8')
      for (const line of text.split('\n')) {
        if (line === '') continue
        const decoded = decodeWalRecord(line)
        if (!decoded.ok) throw corrupt(`${segment.name} holds a ${decoded.reason} line`)
        const { seq } = decoded.record
        if (seq < expected) continue
        if (seq > expected)
          throw gap(`the archive skips from sequence ${expected - 1} to ${seq} in ${segment.name}`)
        if ('untilSeq' in point ? seq > point.untilSeq : decoded.record.at > point.untilTime) break outer
        writeSync(fd, `${line}\n`)
        at = decoded.record.at
        records++
        expected++
        if ('untilSeq' in point && seq === point.untilSeq) break outer
      }
    }
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  const sequence = expected - 1
  if ('untilSeq' in point && sequence < point.untilSeq) {
    throw gap(`the archive ends at sequence ${sequence}, before the requested ${point.untilSeq}`)
  }
  return { sequence, at, records }
}

/** The commit time of the staged store's newest record (only the segments above `fromSeq - 1` are read). */
function lastCommitTime(stagingDir: string, fromSeq: number): number | null {
  let at: number | null = null
  scanWal(stagingDir, Math.max(0, fromSeq - 1), (record) => {
    at = record.at
  })
  return at
}
