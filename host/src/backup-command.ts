import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  EngineError,
  type RestorePoint,
  restoreBackup,
  restoreBackupToPostgres,
  verifyBackup,
} from '@service/core'
import { ExitCode } from './exit-codes.js'
import { progressBar } from './progress-bar.js'

/**
 * `backup --url URL --out FILE`: downloads GET /v1/admin/backup into FILE with a progress bar on stderr
 * (redrawn on a terminal, a line every few seconds otherwise). The bytes go to FILE.partial first and are
 * renamed only once the archive arrived whole, so a dropped connection never leaves a FILE that looks whole.
 */
export async function downloadBackup(options: { url: string; token: string; out: string }): Promise<number> {
  const response = await fetch(`${options.url.replace(/\/$/, '')}/v1/admin/backup`, {
    headers: { authorization: `Bearer ${options.token}` },
  })
  if (!response.ok || response.body === null) {
    const body = (await response.json().catch(() => null)) as {
      error?: { code: string; message: string }
    } | null
    process.stderr.write(
      `backup failed (HTTP ${response.status}): ${body?.error?.code ?? ''} ${body?.error?.message ?? ''}\n`,
    )
    return 1
  }
  const sequence = response.headers.get('x-service-backup-seq')
  const bar = progressBar('backup at sequence {sequence} | {mb} MB | {rate} MB/s')
  const started = performance.now()
  let bytes = 0
  const figures = () => ({
    sequence,
    mb: (bytes / 1e6).toFixed(1),
    rate: (bytes / 1e6 / Math.max(0.001, (performance.now() - started) / 1000)).toFixed(1),
  })
  bar.start(0, 0, figures())
  const partial = `${options.out}.partial`
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length
      bar.update(0, figures())
      done(null, chunk)
    },
  })
  try {
    await pipeline(
      Readable.fromWeb(response.body as never),
      count,
      createWriteStream(partial, { flags: 'wx' }),
    )
  } catch (error) {
    bar.stop()
    rmSync(partial, { force: true })
    process.stderr.write(
      `backup failed: the download broke off after ${bytes} bytes (${(error as Error).message})\n`,
    )
    return 1
  }
  bar.stop()
  renameSync(partial, options.out)
  process.stdout.write(`${JSON.stringify({ file: options.out, sequence: Number(sequence), bytes })}\n`)
  return 0
}

/**
 * `restore BACKUP --storage-dir DIR | --postgres-url URL`: either target must be empty, and every digest is
 * checked before anything appears in it (restore.ts, pg-backup.ts).
 */
export async function restoreCommand(
  archive: string,
  target: { dir: string } | { postgresUrl: string },
  pitr?: { archiveDir: string; point: RestorePoint },
): Promise<number> {
  return reported(async () => {
    const bytes = createReadStream(archive, { highWaterMark: 1 << 20 })
    return 'dir' in target
      ? restoreBackup(bytes, target.dir, pitr)
      : restoreBackupToPostgres(bytes, target.postgresUrl, pitr)
  })
}

/**
 * The restore point of `--until-seq N` / `--until-time T` (ISO 8601 or milliseconds since the epoch), or
 * undefined without either; a message for anything else.
 */
export function restorePointOf(untilSeq?: string, untilTime?: string): RestorePoint | undefined | string {
  if (untilSeq !== undefined && untilTime !== undefined) return 'give --until-seq or --until-time, not both'
  if (untilSeq !== undefined) {
    const n = Number(untilSeq)
    return /^\d+$/.test(untilSeq) && Number.isSafeInteger(n) && n > 0
      ? { untilSeq: n }
      : `--until-seq must be a positive commit sequence, not ${JSON.stringify(untilSeq)}`
  }
  if (untilTime !== undefined) {
    const ms = /^\d+$/.test(untilTime) ? Number(untilTime) : Date.parse(untilTime)
    return Number.isFinite(ms)
      ? { untilTime: ms }
      : `--until-time must be an ISO 8601 time, not ${JSON.stringify(untilTime)}`
  }
  return undefined
}

/** `verify BACKUP|DIR`: digests and a strict replay in a scratch directory; nothing is started or changed. */
export async function verifyCommand(path: string): Promise<number> {
  return reported(async () => verifyBackup(path))
}

/** Refusals the operator fixes by changing the command (exit 2); the rest are integrity failures (exit 6). */
const CONFIG_ERRORS = new Set([
  'RESTORE_TARGET_NOT_EMPTY',
  'BACKUP_UNSUPPORTED',
  'RESTORE_POINT_BEFORE_BACKUP',
])

async function reported(run: () => Promise<unknown>): Promise<number> {
  try {
    process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`)
    return ExitCode.Ok
  } catch (error) {
    if (!(error instanceof EngineError)) throw error
    process.stderr.write(`service-http-server: ${error.code}: ${error.message}\n`)
    if (error.code === 'STORAGE_INCOMPATIBLE') return ExitCode.IncompatibleStorage
    if (CONFIG_ERRORS.has(error.code)) return ExitCode.Config
    return ExitCode.RecoveryIntegrity
  }
}
