import { closeSync, linkSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { EngineError } from '../errors.js'

export interface DirectoryLock {
  readonly path: string
  release(): void
}

interface LockOwner {
  pid: number
  version: string
  started_at: string
}

const parseOwner = (text: string): LockOwner | null => {
  const fields = Object.fromEntries(
    text
      .split('\n')
      .map((line) => line.split('='))
      .filter((kv) => kv.length === 2),
  ) as Record<string, string>
  const pid = Number(fields.pid)
  return Number.isInteger(pid) && pid > 0
    ? { pid, version: fields.version ?? 'unknown', started_at: fields.started_at ?? 'unknown' }
    : null
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it is alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Locks this process holds: a lock file with our own pid is ours only if it is in here (pid 1 in containers is reused). */
const heldHere = new Set<string>()

/** The lock file sits next to the directory: `.<dirname>.service.lock`. */
export const lockPathOf = (dir: string): string => join(dirname(dir), `.${basename(dir)}.service.lock`)

/**
 * Takes the single-owner lock of a storage directory for the life of the process. The lock file is created
 * atomically (hard link of a fully written temp file), holds pid, version and start time, and is taken over
 * only when its owner is provably dead. Any live owner, whatever its version, refuses this start.
 */
export function acquireDirectoryLock(dir: string, version: string): DirectoryLock {
  const path = lockPathOf(dir)
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, `pid=${process.pid}\nversion=${version}\nstarted_at=${new Date().toISOString()}\n`, {
    mode: 0o644,
  })
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(temp, path)
        heldHere.add(path)
        return {
          path,
          release() {
            heldHere.delete(path)
            try {
              const owner = parseOwner(readFileSync(path, 'utf8'))
              if (owner?.pid === process.pid) unlinkSync(path)
            } catch {
              // already gone
            }
          },
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      let owner: LockOwner | null = null
      try {
        owner = parseOwner(readFileSync(path, 'utf8'))
      } catch {
        continue // vanished between link and read: try again
      }
      const ownedByLiveProcess =
        owner !== null && (owner.pid === process.pid ? heldHere.has(path) : alive(owner.pid))
      if (owner !== null && ownedByLiveProcess) {
        throw new EngineError(
          'STORAGE_DIRECTORY_OWNED',
          `storage directory ${dir} is owned by process ${owner.pid} (version ${owner.version}, started ${owner.started_at}); one directory has exactly one owning process`,
        )
      }
      // Stale lock (dead owner or unreadable content): remove it and race again for the link.
      try {
        unlinkSync(path)
      } catch {
        // someone else removed it first
      }
    }
    throw new EngineError('STORAGE_DIRECTORY_OWNED', `could not take the lock ${path}`)
  } finally {
    try {
      unlinkSync(temp)
    } catch {
      // ignore
    }
  }
}

/** Exposed for tests of stale-lock takeover. */
export function writeLockFile(path: string, pid: number, version: string): void {
  const fd = openSync(path, 'w')
  writeFileSync(fd, `pid=${pid}\nversion=${version}\nstarted_at=2000-01-01T00:00:00.000Z\n`)
  closeSync(fd)
}
