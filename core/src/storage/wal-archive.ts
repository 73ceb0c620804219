import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { copyFile, open, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fsyncDirectoryAsync, writeFileAtomicAsync } from './atomic-file.js'
import { listSegments } from './wal-reader.js'

const SEGMENT = /^segment-(\d{20})\.jsonl$/
export const digestFileOf = (name: string) => `${name}.sha256`

/** A segment of the archive, its first sequence and the digest its sidecar names. */
export interface ArchivedSegment {
  name: string
  path: string
  firstSeq: number
}

/** The archive's segments in sequence order (only those whose copy finished: the data file is renamed last). */
export function listArchive(archiveDir: string): ArchivedSegment[] {
  if (!existsSync(archiveDir)) return []
  return readdirSync(archiveDir)
    .map((name) => ({ name, match: SEGMENT.exec(name) }))
    .filter((e): e is { name: string; match: RegExpExecArray } => e.match !== null)
    .map(({ name, match }) => ({ name, path: join(archiveDir, name), firstSeq: Number(match[1]) }))
    .sort((a, b) => a.firstSeq - b.firstSeq)
}

/** The SHA-256 the sidecar records for an archived segment (`sha256sum` format), or null when it is missing. */
export function recordedDigest(segment: ArchivedSegment): string | null {
  const sidecar = `${segment.path}.sha256`
  if (!existsSync(sidecar)) return null
  return /^([0-9a-f]{64})\b/.exec(readFileSync(sidecar, 'utf8'))?.[1] ?? null
}

/**
 * SERVICE_STORAGE_WAL_ARCHIVE_DIR: every sealed WAL segment (and the live one's tail on close) is copied here
 * with a `sha256sum`-style sidecar, for point-in-time recovery past a backup. Copies run on the thread pool,
 * in sequence order, one pass at a time. A segment the archive does not hold yet is never compacted away
 * (`holds`), so an archive that fails (a full disk) delays compaction and is caught up later: it never has
 * a gap. A failure is warned once per distinct message and retried at the next seal.
 */
export class WalArchive {
  private readonly archived = new Set<string>()
  private pass: Promise<void> | null = null
  private again = false
  /** The live segment as last told: never copied, it is still being written. */
  private live: string | null = null
  private lastWarning: string | null = null
  lastError: Error | null = null

  constructor(
    private readonly storageDir: string,
    readonly dir: string,
    private readonly warn: (message: string) => void,
  ) {
    mkdirSync(dir, { recursive: true })
    for (const segment of listArchive(dir)) this.archived.add(segment.name)
  }

  /** True once `name` is safely in the archive (compaction may remove it from the storage directory). */
  holds(name: string): boolean {
    return this.archived.has(name)
  }

  /** Archives every non-empty segment but `livePath` (null on close: all of them) that is not archived yet. */
  catchUp(livePath: string | null): Promise<void> {
    this.live = livePath
    if (this.pass !== null) {
      this.again = true
      return this.pass
    }
    this.pass = this.run(livePath).finally(() => {
      this.pass = null
      if (this.again) {
        this.again = false
        void this.catchUp(this.live)
      }
    })
    return this.pass
  }

  /** Waits for the pass in flight (close, tests). */
  async settle(): Promise<void> {
    while (this.pass !== null) await this.pass
  }

  private async run(livePath: string | null): Promise<void> {
    try {
      for (const segment of listSegments(this.storageDir)) {
        if (segment.path === livePath || segment.bytes === 0 || this.archived.has(segment.name)) continue
        await this.copy(segment.path, segment.name)
        this.archived.add(segment.name)
      }
      this.lastError = null
      this.lastWarning = null
    } catch (error) {
      this.lastError = error as Error
      const message = `WAL archive ${this.dir} failed: ${(error as Error).message}; compaction keeps the segments until it catches up`
      if (message !== this.lastWarning) this.warn(message)
      this.lastWarning = message
    }
  }

  /** Copy, digest, fsync, sidecar, then the rename that makes the segment count as archived. */
  private async copy(from: string, name: string): Promise<void> {
    const partial = join(this.dir, `${name}.partial`)
    try {
      await copyFile(from, partial)
      const hash = createHash('sha256')
      const handle = await open(partial, 'r+')
      try {
        for await (const chunk of handle.createReadStream({ autoClose: false, highWaterMark: 1 << 20 }))
          hash.update(chunk as Buffer)
        await handle.sync()
      } finally {
        await handle.close()
      }
      await writeFileAtomicAsync(join(this.dir, digestFileOf(name)), `${hash.digest('hex')}  ${name}\n`)
      await rename(partial, join(this.dir, name))
      await fsyncDirectoryAsync(this.dir)
    } catch (error) {
      await rm(partial, { force: true })
      throw error
    }
  }
}
