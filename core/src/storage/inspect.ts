import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors.js'
import { fsyncDirectory } from './atomic-file.js'
import { CHECKPOINT_DIR, readCheckpoint } from './checkpoint.js'
import { lockPathOf } from './lock.js'
import { MANIFEST_FILE, readManifest } from './manifest.js'
import { listSegments, scanWal, WAL_DIR } from './wal-reader.js'

export interface StorageInspection {
  dir: string
  owner: string | null
  manifest: { storage_version: string; record_format: string; graph_id: string; updated_at: string } | null
  checkpoints: { name: string; role: string; sequence: number; valid: boolean; reason: string | null }[]
  wal: { segments: number; bytes: number; last_sequence: number; records_to_replay: number }
  damage: { kind: string; detail: string } | null
  /** What a start would do: recover (possibly with warnings), or refuse under strict recovery. */
  plan: {
    recovery_path: 'checkpoint_and_bounded_replay' | 'full_replay' | 'new_directory'
    from_checkpoint_sequence: number
    truncates_torn_tail: boolean
    strict_outcome: 'recovers' | 'refuses'
    lenient_outcome: 'recovers' | 'recovers_prefix'
  }
}

/**
 * Validates a storage directory without opening it for writing (no lock taken, nothing repaired): manifest,
 * every checkpoint's digest and trailer, and every WAL line above the checkpoint; says what recovery would do.
 */
export function inspectStorage(dir: string): StorageInspection {
  if (!existsSync(dir)) throw new EngineError('STORAGE_NOT_FOUND', `no storage directory at ${dir}`)
  const lock = lockPathOf(dir)
  const owner = existsSync(lock) ? readFileSync(lock, 'utf8').trim().replace(/\n/g, ', ') : null
  const manifest = readManifest(dir)
  const checkpoints: StorageInspection['checkpoints'] = []
  let from = 0
  let loaded = false
  for (const component of manifest?.components ?? []) {
    const read = readCheckpoint(dir, component.path, component.sha256)
    checkpoints.push({
      name: component.path,
      role: component.name,
      sequence: component.sequence,
      valid: read.ok,
      reason: read.ok ? null : read.reason,
    })
    if (read.ok && !loaded) {
      from = read.sequence
      loaded = true
    }
  }
  let records = 0
  const scan = scanWal(dir, from, () => {
    records++
  })
  const segments = listSegments(dir)
  const torn = scan.damage?.kind === 'torn_tail'
  const fatal = scan.damage !== null && !torn
  const lostCheckpoint = checkpoints.length > 0 && !loaded && (segments[0]?.firstSeq ?? 1) > 1
  return {
    dir,
    owner,
    manifest:
      manifest === null
        ? null
        : {
            storage_version: manifest.storage_version,
            record_format: manifest.record_format,
            graph_id: manifest.graph_id.value,
            updated_at: manifest.updated_at.value,
          },
    checkpoints,
    wal: {
      segments: segments.length,
      bytes: segments.reduce((n, s) => n + s.bytes, 0),
      last_sequence: scan.lastSeq,
      records_to_replay: records,
    },
    damage: scan.damage === null ? null : { kind: scan.damage.kind, detail: scan.damage.detail },
    plan: {
      recovery_path:
        manifest === null ? 'new_directory' : loaded ? 'checkpoint_and_bounded_replay' : 'full_replay',
      from_checkpoint_sequence: from,
      truncates_torn_tail: torn,
      strict_outcome: fatal || lostCheckpoint ? 'refuses' : 'recovers',
      lenient_outcome: fatal || lostCheckpoint ? 'recovers_prefix' : 'recovers',
    },
  }
}

/**
 * Copies a live directory consistently without stopping its owner: the manifest first, then the checkpoints
 * it names (immutable once written), then the WAL segments in order (append-only; a torn last line in the
 * copy is what a crash leaves and recovery truncates). Checkpoints and sealed segments are hard-linked when
 * the destination is on the same filesystem.
 */
export function snapshotStorage(dir: string, destination: string): StorageInspection {
  if (existsSync(join(destination, MANIFEST_FILE))) {
    throw new EngineError('SNAPSHOT_DESTINATION_EXISTS', `${destination} already holds a storage directory`)
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      mkdirSync(join(destination, CHECKPOINT_DIR), { recursive: true })
      mkdirSync(join(destination, WAL_DIR), { recursive: true })
      const manifest = readFileSync(join(dir, MANIFEST_FILE))
      const parsed = readManifest(dir)
      for (const c of parsed?.components ?? [])
        place(join(dir, CHECKPOINT_DIR, c.path), join(destination, CHECKPOINT_DIR, c.path), true)
      // Only appended to: a copy holds at least the prefix the manifest read above references.
      if (parsed?.payloads !== undefined)
        place(join(dir, parsed.payloads.path), join(destination, parsed.payloads.path), false)
      const segments = listSegments(dir)
      for (const [i, s] of segments.entries())
        place(s.path, join(destination, WAL_DIR, s.name), i < segments.length - 1)
      writeFileSync(join(destination, MANIFEST_FILE), manifest)
      fsyncDirectory(destination)
      return inspectStorage(destination)
    } catch (error) {
      // A checkpoint or compaction moved files under us: start over.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 4) throw error
    }
  }
  throw new EngineError('SNAPSHOT_FAILED', 'the directory kept changing during the copy')
}

function place(from: string, to: string, immutable: boolean): void {
  if (existsSync(to)) return
  if (immutable) {
    try {
      linkSync(from, to)
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error
    }
  }
  copyFileSync(from, to)
}
