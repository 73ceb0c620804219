import { closeSync, fsyncSync, openSync, renameSync } from 'node:fs'
import { open, rename } from 'node:fs/promises'
import { dirname } from 'node:path'
import { writeAllAt } from './positional-write.js'

/** fsync a directory so a rename or create inside it survives a crash. */
export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Writes a file so that a crash leaves either the old or the new content: temp file, fsync, rename, fsync dir. */
export function writeFileAtomic(path: string, data: string | Buffer): void {
  const temp = `${path}.tmp-${process.pid}`
  const fd = openSync(temp, 'w', 0o600)
  try {
    writeAllAt(fd, data, 0)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temp, path)
  fsyncDirectory(dirname(path))
}

/**
 * `fsyncDirectory` and `writeFileAtomic` on the thread pool, for the end of a checkpoint: each fsync may
 * take milliseconds to tens of them, and the event loop need not wait for the disk there.
 */
export async function fsyncDirectoryAsync(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

export async function writeFileAtomicAsync(path: string, data: string | Buffer): Promise<void> {
  const temp = `${path}.tmp-${process.pid}`
  const handle = await open(temp, 'w', 0o600)
  try {
    await handle.writeFile(data)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(temp, path)
  await fsyncDirectoryAsync(dirname(path))
}
