import { createHash } from 'node:crypto'
import { closeSync, existsSync, fsync, mkdirSync, openSync, readSync, unlinkSync } from 'node:fs'
import { rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { MessageChannel } from 'node:worker_threads'
import { READABLE_RECORD_FORMATS, RECORD_FORMAT } from '../version.js'
import { runInWorker, workerPoolAvailable } from '../workers/worker-pool.js'
import { fsyncDirectoryAsync } from './atomic-file.js'
import {
  type CheckpointFileFacts,
  CheckpointFileWriter,
  type CheckpointPiece,
  type EncodedChunk,
  isColumnLine,
  SLICE_POINT,
} from './checkpoint-encoder.js'
import type { CheckpointFileTask, CheckpointMessage } from './checkpoint-file-task.js'
import { type ColumnLine, columnBuffers } from './column-line.js'
import { isIntPropertyColumns } from './int-property-columns.js'

export { type CheckpointPiece, SLICE_POINT } from './checkpoint-encoder.js'
export type { ColumnLine } from './column-line.js'

export const CHECKPOINT_DIR = 'checkpoints'
export const checkpointName = (seq: number) => `checkpoint-${String(seq).padStart(20, '0')}.jsonl`

export interface CheckpointFile {
  name: string
  sequence: number
  sha256: string
  bytes: number
  records: number
}

/** Text lines joined into one chunk for the file writer, at most this many characters. */
const TEXT_CHUNK = 256 * 1024
/** The longest the engine runs between two yields to the event loop while it hands over lines. */
const SLICE_MS = 4

/**
 * Writes a consistent JSON Lines image at `sequence`: a header line, one line per record, and a trailer
 * with the record count and a digest of the record lines. Written beside the live one under a temp name,
 * fsynced, then renamed into place, so a crash leaves the previous checkpoint intact.
 *
 * Encoding column lines, hashing, writing and the fsync run in the worker pool when there is one (see
 * checkpoint-file-task.ts; in-process otherwise, with the same bytes). The engine only walks its records
 * into lines here, and every few milliseconds waits for `pause` (it yields to the event loop there, so reads
 * go on while a large image is written); the clock is read at every piece and at every `SLICE_POINT` the walk
 * offers inside a line. The caller keeps `lines` unchanged across those pauses.
 */
export async function writeCheckpoint(
  dir: string,
  sequence: number,
  lines: Iterable<CheckpointPiece>,
  now: Date,
  pause: () => Promise<void> = () => Promise.resolve(),
  /** Throws to abandon the file before it is renamed into place (it is removed). */
  beforeRename: () => void = () => {},
  /** Where encoding, hashing and writing run: `auto` sends a large image to the worker pool when there is one. */
  placement: 'auto' | 'in-process' | 'worker' = 'auto',
): Promise<CheckpointFile> {
  const folder = join(dir, CHECKPOINT_DIR)
  mkdirSync(folder, { recursive: true })
  const name = checkpointName(sequence)
  const temp = join(folder, `${name}.tmp`)
  const header = JSON.stringify({
    checkpoint: { format: RECORD_FORMAT, sequence, created_at: now.toISOString() },
  })
  const sink: ChunkSink =
    placement === 'worker'
      ? new WorkerSink(temp, header)
      : placement === 'in-process' || !workerPoolAvailable()
        ? new InProcessSink(temp, header)
        : new SizedSink(temp, header)
  let facts: CheckpointFileFacts
  try {
    let text = ''
    let count = 0
    let sliceStart = performance.now()
    for (const piece of lines) {
      if (piece === SLICE_POINT) {
        // only a chance to yield, below
      } else if (typeof piece === 'string') {
        text += `${piece}\n`
        count++
        if (text.length >= TEXT_CHUNK) {
          await sink.send({ text, records: count })
          text = ''
          count = 0
        }
      } else {
        if (count > 0) await sink.send({ text, records: count })
        text = ''
        count = 0
        await sink.send(piece)
      }
      if (performance.now() - sliceStart >= SLICE_MS) {
        await pause()
        sliceStart = performance.now()
      }
    }
    if (count > 0) await sink.send({ text, records: count })
    facts = await sink.finish()
  } catch (error) {
    await sink.abort()
    throw error
  }
  try {
    beforeRename()
    // On the thread pool: a rename over an image of the same sequence frees the old file's blocks in the
    // call (~50 ms for 150 MiB).
    await rename(temp, join(folder, name))
  } catch (error) {
    removeTemp(temp)
    throw error
  }
  await fsyncDirectoryAsync(folder)
  return { name, sequence, ...facts }
}

/** Where a checkpoint's chunks go: the encoding worker, or a writer in this thread. */
export interface ChunkSink {
  send(chunk: EncodedChunk): Promise<void>
  finish(): Promise<CheckpointFileFacts>
  abort(): Promise<void>
}

/**
 * A sink for a checkpoint file written outside `writeCheckpoint` (the offline importer builds its image as it
 * reads its input): a large image is encoded, hashed and written in the worker pool, as the engine's are.
 * `large`: the caller knows the image will be big, so the worker starts now, its start-up overlapping the
 * caller's first rows instead of stalling them once 4 MiB of image are held.
 */
export function openCheckpointSink(path: string, header: string, large = false): ChunkSink {
  if (!workerPoolAvailable()) return new InProcessSink(path, header)
  return large ? new WorkerSink(path, header) : new SizedSink(path, header)
}

class InProcessSink implements ChunkSink {
  private readonly writer: CheckpointFileWriter
  constructor(path: string, header: string) {
    this.writer = new CheckpointFileWriter(path, header)
  }
  async send(chunk: EncodedChunk): Promise<void> {
    this.writer.add(chunk)
  }
  async finish(): Promise<CheckpointFileFacts> {
    const facts = this.writer.seal()
    // The fsync of a large file would hold the event loop: the thread pool does it.
    await promisify(fsync)(this.writer.descriptor)
    this.writer.close()
    return facts
  }
  async abort(): Promise<void> {
    this.writer.abandon()
  }
}

/** Below this much image a worker costs more to start than it saves: the image is written in-process. */
const WORKER_FROM_BYTES = 4 * 1024 * 1024

/**
 * Holds the first chunks back: an image that ends within `WORKER_FROM_BYTES` is written in-process; a larger
 * one goes to the worker, the held chunks first.
 */
class SizedSink implements ChunkSink {
  private held: EncodedChunk[] = []
  private heldBytes = 0
  private sink: ChunkSink | null = null

  constructor(
    private readonly path: string,
    private readonly header: string,
  ) {}

  async send(chunk: EncodedChunk): Promise<void> {
    if (this.sink !== null) return this.sink.send(chunk)
    this.held.push(chunk)
    this.heldBytes += isColumnLine(chunk) ? columnLineSize(chunk) : chunk.text.length
    if (this.heldBytes >= WORKER_FROM_BYTES) await this.handOver(new WorkerSink(this.path, this.header))
  }

  private async handOver(sink: ChunkSink): Promise<void> {
    this.sink = sink
    const held = this.held
    this.held = []
    // Starting the worker took a few milliseconds of this turn: the held megabytes are copied over in
    // turns of their own, one chunk each.
    for (const chunk of held) {
      await nextTurn()
      await sink.send(chunk)
    }
  }

  async finish(): Promise<CheckpointFileFacts> {
    if (this.sink === null) await this.handOver(new InProcessSink(this.path, this.header))
    return this.sink!.finish()
  }

  async abort(): Promise<void> {
    await this.sink?.abort()
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** About how many characters a column line encodes to (its ids are up to 8 digits, commas between). */
function columnLineSize(line: ColumnLine): number {
  let size = 0
  for (const [, value] of line.fields)
    size +=
      typeof value === 'string'
        ? value.length
        : isIntPropertyColumns(value)
          ? value.orders.length * 24
          : value.length * 9
  return size
}

/** Chunks posted to the encoding worker and not yet written: enough to keep it busy, few enough to bound memory. */
const MAX_IN_FLIGHT = 4

class WorkerSink implements ChunkSink {
  private readonly channel = new MessageChannel()
  private readonly done: Promise<CheckpointFileFacts | null>
  private inFlight = 0
  private settled = false
  private wake: (() => void) | null = null

  constructor(path: string, header: string) {
    const port = this.channel.port1
    port.on('message', () => {
      this.inFlight--
      this.notify()
    })
    const task: Omit<CheckpointFileTask, 'port'> & { port: unknown } = {
      port: this.channel.port2,
      path,
      header,
    }
    this.done = runInWorker<CheckpointFileFacts | null>('writeCheckpointFile', task, [this.channel.port2])
    this.done.then(
      () => this.ended(),
      () => this.ended(),
    )
  }

  private ended(): void {
    this.settled = true
    this.notify()
  }

  private notify(): void {
    const wake = this.wake
    this.wake = null
    wake?.()
  }

  async send(chunk: EncodedChunk): Promise<void> {
    if (this.settled) await this.failedEarly()
    const message: CheckpointMessage = { chunk }
    this.channel.port1.postMessage(message, isColumnLine(chunk) ? columnBuffers(chunk) : [])
    this.inFlight++
    while (this.inFlight > MAX_IN_FLIGHT) {
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
      if (this.settled) await this.failedEarly()
    }
  }

  /** The task ended before its end was sent: only a failure does that. */
  private async failedEarly(): Promise<never> {
    await this.done
    throw new Error('the checkpoint worker stopped before the image was complete')
  }

  async finish(): Promise<CheckpointFileFacts> {
    const end: CheckpointMessage = { end: true }
    this.channel.port1.postMessage(end)
    try {
      const facts = await this.done
      if (facts === null) throw new Error('the checkpoint worker abandoned the image')
      return facts
    } finally {
      this.channel.port1.close()
    }
  }

  async abort(): Promise<void> {
    const abort: CheckpointMessage = { abort: true }
    if (!this.settled) this.channel.port1.postMessage(abort)
    try {
      await this.done
    } catch {
      // the task's own failure: the temp file is gone either way
    } finally {
      this.channel.port1.close()
    }
  }
}

export type CheckpointRead = { ok: true; sequence: number; records: number } | { ok: false; reason: string }

const CHUNK = 16 * 1024 * 1024

/** Calls `onChunk` with consecutive chunks of a file, never holding more than one chunk. */
function readChunks(path: string, onChunk: (chunk: Buffer) => void): void {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.allocUnsafe(CHUNK)
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null)
      if (n === 0) return
      onChunk(buffer.subarray(0, n))
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * Reads and fully validates a checkpoint, streaming: a checkpoint of millions of records is far larger than
 * one JavaScript string may be. First the file digest from the manifest is checked (nothing is applied from
 * a file that does not match), then the lines are parsed one at a time; the header and the trailer's record
 * count are checked too. `onLine` receives each record line in order.
 */
export function readCheckpoint(
  dir: string,
  name: string,
  expectedSha256: string,
  onLine: (line: string) => void = () => {},
): CheckpointRead {
  const path = join(dir, CHECKPOINT_DIR, name)
  if (!existsSync(path)) return { ok: false, reason: `checkpoint ${name} is missing` }
  const hash = createHash('sha256')
  readChunks(path, (chunk) => hash.update(chunk))
  if (hash.digest('hex') !== expectedSha256) {
    return { ok: false, reason: `checkpoint ${name} does not match the digest in the manifest` }
  }
  let header: { checkpoint?: { sequence?: number; format?: string } } | null = null
  let held: string | null = null // one line behind, so the last one (the trailer) is never applied
  let records = 0
  let carry: Buffer = Buffer.alloc(0)
  const take = (line: string) => {
    if (header === null) {
      header = JSON.parse(line) as typeof header
      return
    }
    if (held !== null) {
      onLine(held)
      records++
    }
    held = line
  }
  try {
    readChunks(path, (chunk) => {
      let data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk
      let start = 0
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        take(data.toString('utf8', start, nl))
        start = nl + 1
      }
      data = data.subarray(start)
      carry = Buffer.from(data)
    })
    if (carry.length > 0) take(carry.toString('utf8'))
    const h = header as { checkpoint?: { sequence?: number; format?: string } } | null
    if (
      !READABLE_RECORD_FORMATS.includes(h?.checkpoint?.format as string) ||
      !Number.isSafeInteger(h?.checkpoint?.sequence)
    ) {
      return { ok: false, reason: `checkpoint ${name} has a bad header` }
    }
    const trailer = JSON.parse(held ?? '') as { end?: { records?: number } }
    if (trailer.end?.records !== records) return { ok: false, reason: `checkpoint ${name} is truncated` }
    return { ok: true, sequence: h?.checkpoint?.sequence as number, records }
  } catch (error) {
    // Once lines were applied a fallback would build on a half-loaded graph: that is a hard failure.
    if (records > 0) throw error
    return { ok: false, reason: `checkpoint ${name} is malformed` }
  }
}

/** A failed checkpoint leaves no temp file behind (best effort: the storage may be failing). */
function removeTemp(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // left for the next checkpoint of the same sequence to overwrite
  }
}

/** Removes a checkpoint file on the thread pool (a large one takes a while to unlink). */
export async function removeCheckpoint(dir: string, name: string): Promise<void> {
  try {
    await unlink(join(dir, CHECKPOINT_DIR, name))
  } catch {
    // already gone
  }
}
