import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { EngineError } from '../../errors.js'
import { fsyncDirectory } from '../atomic-file.js'
import { CHECKPOINT_DIR } from '../checkpoint.js'
import { MANIFEST_FILE } from '../manifest.js'
import { PAYLOAD_FILE } from '../payload-file.js'
import { WAL_DIR } from '../wal-reader.js'
import { BACKUP_FORMAT, BACKUP_MANIFEST, type BackupManifest } from './backup-archive.js'
import { readTar, type TarEntrySink } from './tar.js'

const corrupt = (message: string) => new EngineError('BACKUP_CORRUPT', message)
/** The only names a file-store archive may hold: nothing can be written outside the target. */
const ALLOWED = new RegExp(
  `^(${MANIFEST_FILE}|${PAYLOAD_FILE.replace('.', '\\.')}|${CHECKPOINT_DIR}/[A-Za-z0-9._-]+|${WAL_DIR}/segment-\\d{20}\\.jsonl)$`,
)
/** A restore's staging directory beside its target; one left behind marks a restore that did not finish. */
export const stagingDirOf = (target: string) => join(dirname(target), `.${basename(target)}.restoring`)

/** Refuses a target that holds anything, and one a previous restore left half-staged. */
export function assertRestorableTarget(target: string): void {
  if (existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0)) {
    throw new EngineError(
      'RESTORE_TARGET_NOT_EMPTY',
      `${target} is not an empty directory; restore only into an empty or absent one`,
    )
  }
  const staging = stagingDirOf(target)
  if (existsSync(staging)) {
    throw new EngineError(
      'RESTORE_TARGET_NOT_EMPTY',
      `${staging} is left from a restore that did not finish; remove it and restore again`,
    )
  }
}

/**
 * Restores a file-store backup archive into `target` (absent or empty): every entry goes into a staging
 * directory beside it, every file's size and SHA-256 is checked against the archive's manifest, and only then
 * is the staging directory renamed onto the target in one step. A restore that fails or is killed leaves the
 * target absent or empty and the staging directory behind, which the next restore refuses until removed: the
 * target is never half-valid.
 */
export async function restoreFileArchive(
  chunks: AsyncIterable<Buffer | string>,
  target: string,
  /** Runs on the verified staging directory before it becomes the target (point-in-time replay). */
  extend?: (staging: string, manifest: BackupManifest) => void,
): Promise<BackupManifest> {
  assertRestorableTarget(target)
  const staging = stagingDirOf(target)
  mkdirSync(join(staging, CHECKPOINT_DIR), { recursive: true })
  mkdirSync(join(staging, WAL_DIR), { recursive: true })
  // The entry being written, closed here if the archive fails in the middle of it.
  let writing: FileHandle | null = null
  try {
    const digests = new Map<string, { bytes: number; sha256: string }>()
    let manifestText = ''
    await readTar(chunks, async (entry) => {
      if (entry.name === BACKUP_MANIFEST) return textSink((text) => (manifestText = text))
      if (!ALLOWED.test(entry.name)) throw corrupt(`the archive holds an unexpected entry ${entry.name}`)
      if (digests.has(entry.name)) throw corrupt(`the archive holds ${entry.name} twice`)
      writing = await open(join(staging, entry.name), 'wx')
      return fileSink(writing, (digest) => {
        writing = null
        digests.set(entry.name, digest)
      })
    })
    const manifest = parseBackupManifest(manifestText)
    checkDigests(manifest, digests)
    extend?.(staging, manifest)
    fsyncDirectory(join(staging, CHECKPOINT_DIR))
    fsyncDirectory(join(staging, WAL_DIR))
    fsyncDirectory(staging)
    if (existsSync(target)) rmdirSync(target)
    renameSync(staging, target)
    fsyncDirectory(dirname(target))
    return manifest
  } catch (error) {
    await (writing as FileHandle | null)?.close().catch(() => {})
    rmSync(staging, { recursive: true, force: true })
    throw error
  }
}

/** Every file the manifest names is in the archive with its size and digest, and nothing else is. */
export function checkDigests(
  manifest: BackupManifest,
  found: ReadonlyMap<string, { bytes: number; sha256: string }>,
): void {
  for (const file of manifest.files) {
    const got = found.get(file.name)
    if (got === undefined)
      throw corrupt(`${file.name} is named in ${BACKUP_MANIFEST} but missing from the archive`)
    if (got.bytes !== file.bytes || got.sha256 !== file.sha256) {
      throw corrupt(`${file.name} fails its checksum (the backup is damaged; nothing was restored)`)
    }
  }
  const named = new Set(manifest.files.map((f) => f.name))
  for (const name of found.keys()) {
    if (!named.has(name)) throw corrupt(`${name} is in the archive but not in ${BACKUP_MANIFEST}`)
  }
}

export function parseBackupManifest(text: string): BackupManifest {
  if (text === '')
    throw corrupt(`the archive has no ${BACKUP_MANIFEST} (it was cut short or is not a backup)`)
  let parsed: BackupManifest
  try {
    parsed = JSON.parse(text) as BackupManifest
  } catch {
    throw corrupt(`${BACKUP_MANIFEST} is not valid JSON`)
  }
  if (
    parsed.format !== BACKUP_FORMAT ||
    !Array.isArray(parsed.files) ||
    !Number.isSafeInteger(parsed.sequence)
  ) {
    throw corrupt(`${BACKUP_MANIFEST} is not a ${BACKUP_FORMAT} manifest`)
  }
  // Both stores back up in the file store's layout; `backend` only says where a backup came from.
  if (parsed.backend !== 'file' && parsed.backend !== 'postgres') {
    throw new EngineError(
      'BACKUP_UNSUPPORTED',
      `a ${String(parsed.backend)} backup is not one this build restores`,
    )
  }
  return parsed
}

function textSink(done: (text: string) => void): TarEntrySink {
  const parts: Buffer[] = []
  return {
    write: (chunk) => {
      parts.push(Buffer.from(chunk))
    },
    end: () => done(Buffer.concat(parts).toString('utf8')),
  }
}

function fileSink(
  handle: FileHandle,
  done: (digest: { bytes: number; sha256: string }) => void,
): TarEntrySink {
  const hash = createHash('sha256')
  let bytes = 0
  return {
    write: async (chunk) => {
      hash.update(chunk)
      bytes += chunk.length
      await handle.write(chunk)
    },
    end: async () => {
      await handle.sync()
      await handle.close()
      done({ bytes, sha256: hash.digest('hex') })
    },
  }
}
