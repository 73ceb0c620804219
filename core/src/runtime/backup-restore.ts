import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineError } from '../errors.js'
import type { StorageOptions } from '../kernel/types.js'
import type { BackupManifest } from '../storage/backup/backup-archive.js'
import { type ArchiveReplay, type RestorePoint, replayArchive } from '../storage/backup/pitr.js'
import { restoreFileArchive } from '../storage/backup/restore.js'
import { snapshotStorage } from '../storage/inspect.js'
import { readManifest } from '../storage/manifest.js'
import { checkPayloadFile } from '../storage/payload-file.js'
import { loadIntoPostgres } from '../storage/postgres/pg-backup.js'
import { redactPostgresUrl } from '../storage/postgres/pg-connect.js'
import { openEngine } from './open-engine.js'

/** What a recovery of a restored (or verified) store found. */
export interface StoreRecovery {
  durable_sequence: number
  recovery_path: string | null
  checkpoint_records: number
  replayed_transactions: number
  elapsed_ms: number
  warnings: string[]
}

export interface RestoreReport {
  target: string
  backup: {
    backend: BackupManifest['backend']
    sequence: number
    graph_id: string
    created_at: string
    files: number
    bytes: number
  }
  /** What the WAL archive added past the backup (null without --until-seq/--until-time). */
  point_in_time: ArchiveReplay | null
  recovery: StoreRecovery
}

/**
 * Restores a backup archive into an empty directory (restore.ts checks every digest before the target
 * exists) and ends with a full, strict recovery of the restored store, which must stand exactly at the
 * backup's sequence.
 */
export async function restoreBackup(
  archive: AsyncIterable<Buffer | string>,
  target: string,
  pitr?: { archiveDir: string; point: RestorePoint },
): Promise<RestoreReport> {
  let replay: ArchiveReplay | null = null
  const manifest = await restoreFileArchive(archive, target, (staging, m) => {
    if (pitr !== undefined) replay = replayArchive(pitr.archiveDir, staging, m.sequence, pitr.point)
  })
  const expected = (replay as ArchiveReplay | null)?.sequence ?? manifest.sequence
  const recovery = await recoverStore(target)
  if (recovery.durable_sequence !== expected) {
    throw new EngineError(
      'BACKUP_CORRUPT',
      `the restored store recovers to sequence ${recovery.durable_sequence}, not the expected ${expected}`,
    )
  }
  return {
    target,
    backup: {
      backend: manifest.backend,
      sequence: manifest.sequence,
      graph_id: manifest.graph_id,
      created_at: manifest.created_at,
      files: manifest.files.length,
      bytes: manifest.files.reduce((n, f) => n + f.bytes, 0),
    },
    point_in_time: replay,
    recovery,
  }
}

/**
 * Restores a backup archive (of either store) into an empty PostgreSQL database: the archive is restored and
 * strictly recovered in a scratch directory first (every digest checked, the point-in-time replay applied),
 * then loaded into the database in one transaction, then the database is recovered as a server would open it
 * and must stand at the same sequence. `target` in the report names the database without its password.
 */
export async function restoreBackupToPostgres(
  archive: AsyncIterable<Buffer | string>,
  url: string,
  pitr?: { archiveDir: string; point: RestorePoint },
): Promise<RestoreReport> {
  const scratch = mkdtempSync(join(tmpdir(), 'service-restore-'))
  try {
    const staged = await restoreBackup(archive, join(scratch, 'store'), pitr)
    const loaded = await loadIntoPostgres(join(scratch, 'store'), url)
    const recovery = await recoverPostgres(url)
    if (loaded !== staged.recovery.durable_sequence || recovery.durable_sequence !== loaded) {
      throw new EngineError(
        'BACKUP_CORRUPT',
        `the restored database recovers to sequence ${recovery.durable_sequence}, not the expected ${staged.recovery.durable_sequence}`,
      )
    }
    return {
      ...staged,
      target: redactPostgresUrl(url),
      recovery,
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** Opens a PostgreSQL store strictly, as its primary, and reports what its recovery found. */
async function recoverPostgres(url: string): Promise<StoreRecovery> {
  return recoveredBy({
    mode: 'persistent',
    requireFsync: true,
    strictRecovery: true,
    postgres: { url, role: 'primary', promote: 'off' },
    checkpointOnClose: false,
  })
}

/**
 * Verifies a backup archive or a storage directory without touching it and without a server: an archive is
 * restored into a scratch directory (every digest checked), a directory is snapshotted into one; either is
 * then recovered strictly, replaying every record, and the scratch directory removed.
 */
export async function verifyBackup(
  path: string,
): Promise<{ path: string; kind: 'archive' | 'directory'; sequence: number; recovery: StoreRecovery }> {
  if (!existsSync(path)) throw new EngineError('STORAGE_NOT_FOUND', `nothing to verify at ${path}`)
  const scratch = mkdtempSync(join(tmpdir(), 'service-verify-'))
  try {
    const target = join(scratch, 'store')
    if (statSync(path).isDirectory()) {
      snapshotStorage(path, target)
      const recovery = await recoverStore(target)
      return { path, kind: 'directory', sequence: recovery.durable_sequence, recovery }
    }
    const report = await restoreBackup(createReadStream(path, { highWaterMark: 1 << 20 }), target)
    return { path, kind: 'archive', sequence: report.backup.sequence, recovery: report.recovery }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** Opens the whole engine on a directory under strict recovery (every ledger and state replayed) and closes it. */
export async function recoverStore(dir: string): Promise<StoreRecovery> {
  // Recovery reads no payload: every record the checkpoints reference is checked here.
  const payloads = readManifest(dir)?.payloads
  if (payloads !== undefined) checkPayloadFile(join(dir, payloads.path), payloads.bytes)
  return recoveredBy({
    mode: 'persistent',
    dir,
    requireFsync: true,
    strictRecovery: true,
    checkpointOnClose: false,
  })
}

async function recoveredBy(storage: StorageOptions): Promise<StoreRecovery> {
  const warnings: string[] = []
  const engine = await openEngine({ storage, onWarning: (message) => warnings.push(message) })
  try {
    const facts = engine.recoveryFacts()
    return {
      durable_sequence: engine.durableSequence(),
      recovery_path: facts.recovery_path,
      checkpoint_records: facts.checkpoint_records,
      replayed_transactions: facts.replayed_transactions,
      elapsed_ms: facts.elapsed_ms,
      warnings: [...facts.warnings, ...warnings.filter((w) => !facts.warnings.includes(w))],
    }
  } finally {
    await engine.close()
  }
}
