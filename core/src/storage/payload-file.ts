import {
  closeSync,
  existsSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
} from 'node:fs'
import { promisify } from 'node:util'
import { crc32 } from 'node:zlib'
import { EngineError } from '../errors.js'
import { PayloadCache } from './payload-cache.js'
import { writeAllAt } from './positional-write.js'

/**
 * The payload file: long property values and raw payloads written once, read back on demand (issue 39). It
 * is append-only: a header, then records `[u32 length][u32 crc32][length bytes of UTF-8]`, little-endian. A
 * value's address is its record's offset and byte length; the checkpoint that references a value also
 * records how many bytes of the file were durable then, so recovery knows exactly which prefix is real.
 *
 * Bytes past that prefix are payloads appended after the last checkpoint (the log still holds those values
 * in full) or a write torn by a crash: either way nothing durable references them, and `open` cuts them off.
 * Every read checks the record's length and checksum, so a corrupted payload is reported, never returned.
 */
/** The payload file's name in a storage directory (one generation: it is only appended to). */
export const PAYLOAD_FILE = 'payloads.dat'
export const PAYLOAD_MAGIC = Buffer.from('SVCPAYL1', 'latin1')
const HEADER_BYTES = PAYLOAD_MAGIC.length
const RECORD_HEADER_BYTES = 8
const syncFd = promisify(fdatasync)

/** Where one value lives in the payload file. */
export interface PayloadAddress {
  /** Offset of the value's record (its length field). */
  readonly offset: number
  /** Byte length of the value's UTF-8 text. */
  readonly bytes: number
}

export interface PayloadFileOptions {
  /**
   * Bytes of the file that durable state (the checkpoint) references; longer files are cut back to it. Absent
   * for a new file, or to keep every whole record (a file nothing references yet).
   */
  durableBytes?: number
  /** Bound of the read cache, in bytes of cached text (SERVICE_STORAGE_PAYLOAD_CACHE_BYTES). */
  cacheBytes: number
}

export interface PayloadFileOpening {
  file: PayloadFile
  /** Bytes cut from the end (a torn write, or payloads no durable state referenced). */
  droppedBytes: number
}

const corrupt = (path: string, message: string) =>
  new EngineError('STORAGE_RECOVERY_FAILED', `payload file ${path}: ${message}`)

/** Appends are gathered up to this many bytes before one write: a checkpoint spills values by the thousand. */
const WRITE_BATCH_BYTES = 1 << 20
const SCRATCH_BYTES = 64 * 1024

export class PayloadFile {
  private end: number
  private syncedEnd: number
  private readonly cache: PayloadCache
  /** Appended records not yet written, from `pendingStart` on (the file holds everything before it). */
  private pending: Buffer[] = []
  private pendingStart: number
  private pendingBytes = 0
  /**
   * Where reads of records up to SCRATCH_BYTES land before they are decoded: a Buffer per read made a slab
   * of garbage outside the heap that no collection was due to free (an index rebuild reading a million
   * descriptions left ~140 MB of it).
   */
  private readonly scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES)

  private constructor(
    readonly path: string,
    private fd: number,
    end: number,
    cacheBytes: number,
  ) {
    this.end = end
    this.syncedEnd = end
    this.pendingStart = end
    this.cache = new PayloadCache(cacheBytes)
  }

  /**
   * Opens (or creates) the payload file at `path`. A file shorter than `durableBytes`, or without the header,
   * fails recovery: payloads the checkpoint references are gone. A longer one is cut back to `durableBytes`.
   */
  static open(path: string, options: PayloadFileOptions): PayloadFileOpening {
    if (!Number.isSafeInteger(options.cacheBytes) || options.cacheBytes < 0)
      throw new EngineError('INVALID_QUERY', `payload cache bytes must be a non-negative integer`)
    const created = !existsSync(path)
    const fd = openSync(path, created ? 'w+' : 'r+', 0o600)
    try {
      let size = fstatSync(fd).size
      if (created || size === 0) {
        if (options.durableBytes !== undefined && options.durableBytes > HEADER_BYTES)
          throw corrupt(path, `is empty but the checkpoint references ${options.durableBytes} bytes`)
        writeAllAt(fd, PAYLOAD_MAGIC, 0)
        fdatasyncSync(fd)
        size = HEADER_BYTES
      } else {
        const magic = Buffer.alloc(HEADER_BYTES)
        readSync(fd, magic, 0, HEADER_BYTES, 0)
        if (size < HEADER_BYTES || !magic.equals(PAYLOAD_MAGIC)) throw corrupt(path, 'has no payload header')
      }
      const keep = options.durableBytes ?? wholeRecordsEnd(fd, size)
      if (keep < HEADER_BYTES) throw corrupt(path, `durable length ${keep} is shorter than its header`)
      if (size < keep)
        throw corrupt(
          path,
          `holds ${size} bytes but the checkpoint references ${keep} (payloads are missing)`,
        )
      if (size > keep) {
        ftruncateSync(fd, keep)
        fdatasyncSync(fd)
      }
      return { file: new PayloadFile(path, fd, keep, options.cacheBytes), droppedBytes: size - keep }
    } catch (error) {
      closeSync(fd)
      throw error
    }
  }

  /** Bytes in the file, appended or not yet synced included. */
  get size(): number {
    return this.end
  }

  /** Bytes known to be on disk: what a checkpoint may reference. */
  get durableSize(): number {
    return this.syncedEnd
  }

  /** Appends `text` as one record (not yet durable: `sync` makes it so). */
  append(text: string): PayloadAddress {
    const body = Buffer.from(text, 'utf8')
    if (body.length > 0xffff_ffff) throw new EngineError('INVALID_QUERY', 'a payload is limited to 4 GiB')
    const record = Buffer.allocUnsafe(RECORD_HEADER_BYTES + body.length)
    record.writeUInt32LE(body.length, 0)
    record.writeUInt32LE(crc32(body), 4)
    body.copy(record, RECORD_HEADER_BYTES)
    const offset = this.end
    this.pending.push(record)
    this.pendingBytes += record.length
    this.end += record.length
    if (this.pendingBytes >= WRITE_BATCH_BYTES) this.flush()
    return { offset, bytes: body.length }
  }

  /**
   * Writes the gathered appends in one go. On failure they are dropped and the file's end goes back to where
   * they began: their addresses were handed to a checkpoint that now fails, which swaps none of them in.
   */
  private flush(): void {
    if (this.pendingBytes === 0) return
    const records = this.pending
    const at = this.pendingStart
    this.pending = []
    this.pendingBytes = 0
    try {
      writeAllAt(this.fd, records.length === 1 ? (records[0] as Buffer) : Buffer.concat(records), at)
      this.pendingStart = this.end
    } catch (error) {
      this.end = at
      this.pendingStart = at
      throw error
    }
  }

  /** Makes every appended record durable (fdatasync on the thread pool); resolves to the durable size. */
  async sync(): Promise<number> {
    this.flush()
    const end = this.end
    await syncFd(this.fd)
    if (end > this.syncedEnd) this.syncedEnd = end
    return end
  }

  /** The value at `address`, from the cache or the file; a record that does not check out is an error. */
  read(address: PayloadAddress): string {
    const cached = this.cache.get(address.offset)
    if (cached !== undefined) return cached
    const text = this.readRecord(address)
    this.cache.set(address.offset, text, address.bytes)
    return text
  }

  peek(address: PayloadAddress): string {
    return this.cache.get(address.offset) ?? this.readRecord(address)
  }

  private readRecord({ offset, bytes }: PayloadAddress): string {
    if (offset >= this.pendingStart) this.flush()
    if (
      !Number.isSafeInteger(offset) ||
      offset < HEADER_BYTES ||
      offset + RECORD_HEADER_BYTES + bytes > this.end
    )
      throw this.damaged(offset, `address (${offset}, ${bytes}) lies outside the file's ${this.end} bytes`)
    const size = RECORD_HEADER_BYTES + bytes
    const record = size <= SCRATCH_BYTES ? this.scratch.subarray(0, size) : Buffer.allocUnsafe(size)
    const got = readFully(this.fd, record, offset)
    if (got < record.length) throw this.damaged(offset, `only ${got} of ${record.length} bytes could be read`)
    const length = record.readUInt32LE(0)
    if (length !== bytes)
      throw this.damaged(offset, `record holds ${length} bytes where ${bytes} were written`)
    const body = record.subarray(RECORD_HEADER_BYTES)
    if (crc32(body) !== record.readUInt32LE(4)) throw this.damaged(offset, 'checksum mismatch')
    return body.toString('utf8')
  }

  private damaged(offset: number, message: string): EngineError {
    return new EngineError(
      'STORAGE_PAYLOAD_CORRUPT',
      `payload file ${this.path} at offset ${offset}: ${message}`,
    )
  }

  /** Cache figures for /health and the benchmark. */
  cacheStats(): { bytes: number; limit: number; hits: number; misses: number } {
    return this.cache.stats()
  }

  close(): void {
    if (this.fd < 0) return
    // Not durable without a sync, but readable by whoever opens the file next in this state.
    try {
      this.flush()
    } catch {
      // closing anyway: what was not written was never durable
    }
    closeSync(this.fd)
    this.fd = -1
  }
}

/**
 * Checks every record of the first `durableBytes` of the payload file at `path` (length and checksum): what
 * restore and verify run, since recovery itself reads no payload. Throws `STORAGE_PAYLOAD_CORRUPT`.
 */
export function checkPayloadFile(path: string, durableBytes: number): void {
  const damaged = (message: string) =>
    new EngineError('STORAGE_PAYLOAD_CORRUPT', `payload file ${path}: ${message}`)
  if (!existsSync(path)) throw damaged(`is missing (the checkpoint references ${durableBytes} bytes)`)
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    if (size < durableBytes) throw damaged(`holds ${size} bytes, the checkpoint references ${durableBytes}`)
    const magic = Buffer.alloc(HEADER_BYTES)
    readSync(fd, magic, 0, HEADER_BYTES, 0)
    if (!magic.equals(PAYLOAD_MAGIC)) throw damaged('has no payload header')
    const whole = wholeRecordsEnd(fd, durableBytes)
    if (whole !== durableBytes) throw damaged(`the record at offset ${whole} does not check out`)
  } finally {
    closeSync(fd)
  }
}

/** A payload reference in a checkpoint line: unescaped, so never the text of a string property. */
const PAYLOAD_TAG = '{"$payload":['

/**
 * A checkpoint line with every payload reference replaced by its value read from `file`: for a store that
 * keeps every value resident (loading a file store into PostgreSQL). Lines without one come back as they are.
 */
export function resolvePayloadCells(line: string, file: PayloadFile): string {
  if (!line.includes(PAYLOAD_TAG)) return line
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve)
    if (value === null || typeof value !== 'object') return value
    const address = (value as { $payload?: unknown }).$payload
    if (Array.isArray(address) && Object.keys(value).length === 1)
      return file.read({ offset: address[0] as number, bytes: address[1] as number })
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]))
  }
  return JSON.stringify(resolve(JSON.parse(line)))
}

function readFully(fd: number, buffer: Buffer, position: number): number {
  let got = 0
  while (got < buffer.length) {
    const n = readSync(fd, buffer, got, buffer.length - got, position + got)
    if (n === 0) break
    got += n
  }
  return got
}

/**
 * End of the last whole, checksummed record: a file nothing references yet keeps what was written in full and
 * loses a torn last record. Scans the file once (only when no checkpoint gives the durable length).
 */
function wholeRecordsEnd(fd: number, size: number): number {
  const header = Buffer.alloc(RECORD_HEADER_BYTES)
  let at = HEADER_BYTES
  while (at + RECORD_HEADER_BYTES <= size) {
    readSync(fd, header, 0, RECORD_HEADER_BYTES, at)
    const length = header.readUInt32LE(0)
    const next = at + RECORD_HEADER_BYTES + length
    if (next > size) break
    const body = Buffer.allocUnsafe(length)
    if (readFully(fd, body, at + RECORD_HEADER_BYTES) < length || crc32(body) !== header.readUInt32LE(4))
      break
    at = next
  }
  return at
}
