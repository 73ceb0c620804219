import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fsyncDirectory } from './atomic-file.js'
import { readCheckpoint } from './checkpoint.js'
import type { ReplaySink } from './durable-store.js'
import {
  type Manifest,
  type ManifestComponent,
  newManifest,
  readManifest,
  writeManifest,
} from './manifest.js'
import { PAYLOAD_FILE, PAYLOAD_MAGIC, PayloadFile } from './payload-file.js'
import { listSegments, scanWal, WAL_DIR, type WalDamage, type WalScan } from './wal-reader.js'

export const QUARANTINE_DIR = 'quarantine'

/** What opening a directory needs to know of it. */
export interface DirectoryOptions {
  dir: string
  strictRecovery: boolean
  now: () => number
  payloadCacheBytes: number
}

/** A directory read back into the sink: its manifest, payload file, the checkpoint loaded and the log replayed. */
export interface RecoveredDirectory {
  manifest: Manifest
  payloads: PayloadFile
  loaded: ManifestComponent | null
  checkpointRecords: number
  /** The manifest's current checkpoint was the one loaded (or there is none). */
  componentsValid: boolean
  replayed: number
  scan: WalScan
}

/**
 * Recovers a storage directory into `sink` (the file store's open, before it takes the log for writing): the
 * manifest (written anew when missing), the payload file cut to what the manifest references, the latest valid
 * checkpoint, then the log above it, repairing a torn tail (and, unless recovery is strict, a damaged suffix).
 */
export function recoverDirectory(
  options: DirectoryOptions,
  sink: ReplaySink,
  warn: (message: string) => void,
  fail: (message: string) => never,
): RecoveredDirectory {
  let manifest = readManifest(options.dir)
  if (manifest === null) {
    const hasData =
      listSegments(options.dir).some((s) => s.bytes > 0) || existsSync(join(options.dir, 'checkpoints'))
    if (hasData) {
      if (options.strictRecovery) fail(`storage directory ${options.dir} has data but no manifest.json`)
      warn('manifest.json was missing; a new one was written for the existing data')
    }
    manifest = newManifest(`graph--runtime-${randomUUID()}`, new Date(options.now()))
    writeManifest(options.dir, manifest)
  }

  // Cut to what the manifest references: payloads appended by a checkpoint that never switched, or torn.
  const opening = PayloadFile.open(join(options.dir, PAYLOAD_FILE), {
    durableBytes: manifest.payloads?.bytes ?? PAYLOAD_MAGIC.length,
    cacheBytes: options.payloadCacheBytes,
  })
  const payloads = opening.file
  try {
    if (opening.droppedBytes > 0)
      warn(`cut ${opening.droppedBytes} unreferenced bytes from the end of ${PAYLOAD_FILE}`)
    return { manifest, payloads, ...replay(options, manifest, payloads, sink, warn, fail) }
  } catch (error) {
    payloads.close()
    throw error
  }
}

/** The latest valid checkpoint, then the log above it (repaired where it ends torn or, unless strict, damaged). */
function replay(
  options: DirectoryOptions,
  manifest: Manifest,
  payloads: PayloadFile,
  sink: ReplaySink,
  warn: (message: string) => void,
  fail: (message: string) => never,
): Omit<RecoveredDirectory, 'manifest' | 'payloads'> {
  const image = loadLatestCheckpoint(options.dir, manifest, payloads, sink, warn)
  let afterSeq = image.afterSeq
  const { checkpointRecords, loaded, componentsValid, candidates } = image
  if (candidates > 0 && loaded === null) {
    const first = listSegments(options.dir)[0]
    if (first === undefined || first.firstSeq > 1) {
      if (options.strictRecovery)
        fail('no valid checkpoint and the write-ahead log does not reach back to sequence 1')
      afterSeq = first === undefined ? 0 : first.firstSeq - 1
      warn(`no valid checkpoint; recovered from the write-ahead log above sequence ${afterSeq} only`)
    }
  }

  let replayed = 0
  const scan = scanWal(options.dir, afterSeq, (record) => {
    sink.applyRecord(record)
    replayed++
  })
  if (scan.damage !== null) repair(options.dir, scan.damage, options.strictRecovery, warn, fail)
  return { loaded, checkpointRecords, componentsValid, replayed, scan }
}

/** Truncates a torn tail (always), or a damaged suffix (only when recovery is not strict), keeping a copy. */
function repair(
  dir: string,
  damage: WalDamage,
  strict: boolean,
  warn: (m: string) => void,
  fail: (m: string) => never,
): void {
  if (damage.kind !== 'torn_tail' && strict) {
    fail(`write-ahead log damaged (${damage.kind}: ${damage.detail}); strict recovery refuses to start`)
  }
  const quarantine = join(dir, WAL_DIR, QUARANTINE_DIR)
  mkdirSync(quarantine, { recursive: true })
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const tail = readFileSync(damage.segment.path).subarray(damage.offset)
  writeFileSync(join(quarantine, `${damage.segment.name}.${stamp}.tail`), tail)
  truncateSync(damage.segment.path, damage.offset)
  for (const later of listSegments(dir).filter((s) => s.firstSeq > damage.segment.firstSeq)) {
    renameSync(later.path, join(quarantine, `${later.name}.${stamp}`))
  }
  fsyncDirectory(join(dir, WAL_DIR))
  warn(
    damage.kind === 'torn_tail'
      ? `truncated a torn final write-ahead log line (${tail.length} bytes) in ${damage.segment.name}`
      : `write-ahead log damaged (${damage.kind}: ${damage.detail}); recovered the longest valid prefix, the rest is kept in wal/${QUARANTINE_DIR}`,
  )
}

interface CheckpointImage {
  /** The sequence the loaded image stands at (0 when none was loaded). */
  afterSeq: number
  checkpointRecords: number
  loaded: ManifestComponent | null
  /** The manifest's current checkpoint was the one loaded (or there is none). */
  componentsValid: boolean
  candidates: number
}

/** Loads the latest valid checkpoint: the current one, else the previous generation (kept for exactly this). */
export function loadLatestCheckpoint(
  dir: string,
  manifest: Manifest,
  payloads: PayloadFile,
  sink: ReplaySink,
  warn: (message: string) => void,
): CheckpointImage {
  sink.usePayloads?.(payloads)
  const candidates = ['checkpoint', 'previous_checkpoint'].flatMap((n) =>
    manifest.components.filter((c) => c.name === n),
  )
  for (const component of candidates) {
    // The digest is verified before any line is applied, so a bad file leaves the sink untouched.
    const read = readCheckpoint(dir, component.path, component.sha256, (line) =>
      sink.loadCheckpointLine(line),
    )
    if (!read.ok) {
      warn(read.reason)
      continue
    }
    return {
      afterSeq: read.sequence,
      checkpointRecords: read.records,
      loaded: component,
      componentsValid: component === candidates[0],
      candidates: candidates.length,
    }
  }
  return {
    afterSeq: 0,
    checkpointRecords: 0,
    loaded: null,
    componentsValid: candidates.length === 0,
    candidates: candidates.length,
  }
}
