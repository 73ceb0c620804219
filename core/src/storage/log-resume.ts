import { closeSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, unlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fsyncDirectory } from './atomic-file.js'
import { writeAllAt } from './positional-write.js'

const PROBE_BYTES = 4096

/**
 * Asks the storage whether it answers again: creates a fresh file beside the log, writes a block, syncs it
 * and removes it. Throws what the storage says (EIO, ENOSPC, …). A fresh file, never the failed one: the
 * failed file's fsync result can no longer be trusted.
 */
export function probeStorage(dir: string): void {
  const path = join(dir, `.probe-${process.pid}`)
  const fd = openSync(path, 'w', 0o600)
  try {
    writeAllAt(fd, Buffer.alloc(PROBE_BYTES, 0x2e), 0)
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
  unlinkSync(path)
  fsyncDirectory(dir)
}

/**
 * Cuts a segment whose write or fsync failed back to its durable prefix: the bytes up to the end of the
 * last batch whose fsync succeeded. What followed (the failed batch, perhaps torn) is dropped, so its
 * writers, who were answered with an error, are absent after the resume. This is not a retried fsync
 * trusted for the failed bytes (PostgreSQL's fsyncgate: a failed writeback may leave its pages marked clean,
 * so a second fsync can succeed without them): the failed bytes are discarded, the prefix was on disk
 * before the failure, and the sync below only makes the new length durable. Needs no free space, so it
 * works on a disk that was full.
 */
export function cutToDurablePrefix(path: string, durableBytes: number): void {
  const fd = openSync(path, 'r+')
  try {
    ftruncateSync(fd, durableBytes)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  fsyncDirectory(dirname(path))
}
