import { randomUUID } from 'node:crypto'
import { mkdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { fsyncDirectory } from '../storage/atomic-file.js'
import { CHECKPOINT_DIR, type ChunkSink, checkpointName, openCheckpointSink } from '../storage/checkpoint.js'
import type { EncodedChunk } from '../storage/checkpoint-encoder.js'
import type { ColumnLine } from '../storage/column-line.js'
import { newManifest, writeManifest } from '../storage/manifest.js'
import { PAYLOAD_FILE, PAYLOAD_MAGIC, PayloadFile } from '../storage/payload-file.js'
import { PAYLOAD_RECORD_FORMAT, RECORD_FORMAT, TEMPORAL_RECORD_FORMAT } from '../version.js'
import type { PayloadSink } from './image-batches.js'

/** The sequence of an imported image: before the first commit, so the log starts at 1 over it. */
const IMAGE_SEQUENCE = 0
/** Text lines joined before each write (the engine's checkpoint writer joins about as much). */
const TEXT_CHUNK = 256 * 1024

/**
 * A storage directory's first checkpoint, written directly: the image file (under a temp name until sealed),
 * the payload file for long strings, and last the manifest naming both, so the directory is a store only once
 * everything it names is on disk. `PersistentStorage.open` then loads it as after any clean shutdown.
 */
export class ImageFile {
  private readonly sink: ChunkSink
  /** Chunks made since the last `send`: the import hands them over between batches of rows. */
  private queue: EncodedChunk[] = []
  private readonly temp: string
  private readonly payloadFile: PayloadFile
  private text = ''
  private lines = 0
  /** A temporal value went into the image: the manifest says JsonLinesV2 at least. */
  temporal = false
  readonly payloads: PayloadSink

  constructor(
    private readonly dir: string,
    private readonly now: Date,
    payloadMinBytes: number,
    /** The input is large: the image's encoding worker starts at once (see `openCheckpointSink`). */
    large: boolean,
  ) {
    const folder = join(dir, CHECKPOINT_DIR)
    mkdirSync(folder, { recursive: true })
    this.temp = join(folder, `${checkpointName(IMAGE_SEQUENCE)}.tmp`)
    const header = JSON.stringify({
      checkpoint: { format: RECORD_FORMAT, sequence: IMAGE_SEQUENCE, created_at: now.toISOString() },
    })
    this.sink = openCheckpointSink(this.temp, header, large)
    this.payloadFile = PayloadFile.open(join(dir, PAYLOAD_FILE), { cacheBytes: 0 }).file
    const file = this.payloadFile
    this.payloads = { minBytes: payloadMinBytes, append: (text) => file.append(text) }
  }

  /** Adds a record line: JSON text, or a column line (encoded as the engine's writer encodes it). */
  add(line: string | ColumnLine): void {
    if (typeof line !== 'string') {
      this.flush()
      this.queue.push(line)
      return
    }
    this.text += `${line}\n`
    this.lines++
    if (this.text.length >= TEXT_CHUNK) this.flush()
  }

  private flush(): void {
    if (this.lines === 0) return
    this.queue.push({ text: this.text, records: this.lines })
    this.text = ''
    this.lines = 0
  }

  /**
   * Hands the lines added so far to the file writer (in the worker pool for a large image, so encoding, hashing
   * and writing overlap the reading of the next rows); waits when the writer is behind.
   */
  async send(): Promise<void> {
    const queue = this.queue
    this.queue = []
    for (const chunk of queue) await this.sink.send(chunk)
  }

  /** Seals and syncs the image and the payloads, then writes the manifest; returns the image's size. */
  async finish(): Promise<{ bytes: number; payloadBytes: number }> {
    this.flush()
    await this.send()
    const facts = await this.sink.finish()
    const name = checkpointName(IMAGE_SEQUENCE)
    renameSync(this.temp, join(this.dir, CHECKPOINT_DIR, name))
    fsyncDirectory(join(this.dir, CHECKPOINT_DIR))
    const payloadBytes = await this.payloadFile.sync()
    this.payloadFile.close()
    const holdsPayloads = payloadBytes > PAYLOAD_MAGIC.length
    const manifest = newManifest(`graph--import-${randomUUID()}`, this.now)
    writeManifest(this.dir, {
      ...manifest,
      record_format: holdsPayloads
        ? PAYLOAD_RECORD_FORMAT
        : this.temporal
          ? TEMPORAL_RECORD_FORMAT
          : RECORD_FORMAT,
      ...(holdsPayloads ? { payloads: { path: PAYLOAD_FILE, bytes: payloadBytes } } : {}),
      components: [
        {
          name: 'checkpoint',
          path: name,
          sequence: IMAGE_SEQUENCE,
          sha256: facts.sha256,
          bytes: facts.bytes,
        },
      ],
    })
    return { bytes: facts.bytes, payloadBytes }
  }

  /** Drops the unfinished image (the caller empties the directory). */
  async abandon(): Promise<void> {
    this.queue = []
    await this.sink.abort()
    this.payloadFile.close()
  }
}
