import { closeSync, fdatasyncSync, openSync, readSync, renameSync, unlinkSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
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
 * Replaces a segment whose fsync failed by a fresh copy of its durable prefix: the bytes up to the last
 * batch whose fsync succeeded are read back, written to a new file, synced, and renamed over the old one.
 * What followed (the failed batch, perhaps torn) is dropped, so its writers, who were answered with an
 * error, are absent after the resume; nothing of the failed file is trusted beyond what was durable.
 */
export function rewriteDurablePrefix(path: string, durableBytes: number): void {
  const prefix = Buffer.alloc(durableBytes)
  if (durableBytes > 0) {
    const source = openSync(path, 'r')
    try {
      for (let at = 0; at < durableBytes; ) {
        const n = readSync(source, prefix, at, durableBytes - at, at)
        if (n === 0) throw new Error(`${basename(path)} is shorter than its durable prefix`)
        at += n
      }
    } finally {
      closeSync(source)
    }
  }
  const temp = `${path}.rewrite`
  const fd = openSync(temp, 'w', 0o600)
  try {
    writeAllAt(fd, prefix, 0)
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temp, path)
  fsyncDirectory(dirname(path))
}
