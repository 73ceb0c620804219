import { closeSync, fstatSync, openSync, read } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { CHECKPOINT_DIR } from '../checkpoint.js'
import { MANIFEST_FILE, type Manifest } from '../manifest.js'
import { listSegments, WAL_DIR } from '../wal-reader.js'

/** One file of a backup: its name in the archive, its size, and a bounded-memory reader of exactly that size. */
export interface BackupFile {
  name: string
  size: number
  read(): AsyncIterable<Buffer>
}

/** A consistent image of a store at one commit sequence, held open until `release`. */
export interface BackupSource {
  backend: 'file' | 'postgres'
  sequence: number
  graphId: string
  files: BackupFile[]
  release(): void
}

/** What the live store hands the capture: its in-memory manifest and the durable end of its live segment. */
export interface FileStoreView {
  dir: string
  manifest: Manifest
  durableSeq: number
  live: { path: string; durableBytes: number }
}

/**
 * Captures a storage directory at its durable sequence, synchronously (no checkpoint or compaction step runs
 * meanwhile): the manifest as held in memory, the checkpoints it names and the WAL segments above the oldest
 * of them, each opened now. Open descriptors keep a checkpoint or segment readable after compaction unlinks
 * it, so the copy streams later at its own pace. The live segment is cut at its durable end: every
 * acknowledged write is in the image, nothing past `durableSeq` is.
 */
export function captureFileStore(view: FileStoreView): BackupSource {
  const fds: number[] = []
  // Idempotent: the archive's end and the stream's close both release. Each descriptor is closed on its own,
  // so one that fails cannot keep the rest open.
  const release = () => {
    for (const fd of fds.splice(0)) {
      try {
        closeSync(fd)
      } catch {
        // Already closed: nothing is left to give back.
      }
    }
  }
  try {
    const files: BackupFile[] = []
    const add = (name: string, path: string, size?: number) => {
      const fd = openSync(path, 'r')
      fds.push(fd)
      files.push(fileOf(name, fd, size ?? fstatSync(fd).size))
    }
    const components = view.manifest.components
    for (const c of components) {
      if (c.sequence > view.durableSeq) throw new Error(`checkpoint ${c.path} is past the durable sequence`)
      add(`${CHECKPOINT_DIR}/${c.path}`, join(view.dir, CHECKPOINT_DIR, c.path))
    }
    // The payload file's prefix the checkpoints reference (later appends are not durable state).
    const payloads = view.manifest.payloads
    if (payloads !== undefined) add(payloads.path, join(view.dir, payloads.path), payloads.bytes)
    // Segments wholly at or below the oldest checkpoint are not needed (compaction may be removing them).
    const keepAbove = components.length === 0 ? 0 : Math.min(...components.map((c) => c.sequence))
    const segments = listSegments(view.dir)
    for (const [i, s] of segments.entries()) {
      const next = segments[i + 1]
      if (next !== undefined && next.firstSeq - 1 <= keepAbove) continue
      if (s.firstSeq > view.durableSeq + 1) break
      add(`${WAL_DIR}/${s.name}`, s.path, s.path === view.live.path ? view.live.durableBytes : undefined)
      if (s.path === view.live.path) break
    }
    const manifest = Buffer.from(`${JSON.stringify(view.manifest, null, 2)}\n`)
    files.unshift({ name: MANIFEST_FILE, size: manifest.length, read: () => bytesOf(manifest) })
    return {
      backend: 'file',
      sequence: view.durableSeq,
      graphId: view.manifest.graph_id.value,
      files,
      release,
    }
  } catch (error) {
    release()
    throw error
  }
}

async function* bytesOf(buffer: Buffer): AsyncIterable<Buffer> {
  yield buffer
}

const readAt = promisify(read)
const CHUNK_BYTES = 1 << 20

function fileOf(name: string, fd: number, size: number): BackupFile {
  return { name, size, read: () => (size === 0 ? bytesOf(Buffer.alloc(0)) : chunksOf(fd, size)) }
}

/**
 * The first `size` bytes of `fd` by positional reads. Not an fs.ReadStream: destroying one (a client that
 * hangs up mid-file) closes its descriptor even with autoClose off, and the later `release` then closed a
 * number the process may already have reused. Here only `release` closes, and never during a read: the
 * archive's generator runs its `finally` only between reads.
 */
async function* chunksOf(fd: number, size: number): AsyncIterable<Buffer> {
  for (let at = 0; at < size; ) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - at))
    const { bytesRead } = await readAt(fd, buffer, 0, buffer.length, at)
    if (bytesRead === 0) return
    at += bytesRead
    yield bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead)
  }
}
