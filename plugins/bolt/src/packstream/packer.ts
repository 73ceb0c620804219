import { Marker, type PackValue, Structure } from './structure.js'

const INT64_MIN = -(1n << 63n)
/** The largest chunk a Bolt message is framed in. */
const MAX_CHUNK = 0xffff
const INT64_MAX = (1n << 63n) - 1n

export class PackError extends Error {
  override readonly name = 'PackError'
}

/**
 * Writes PackStream v1 into a growing buffer, choosing the smallest size class for every value. `finish()`
 * returns the bytes written since the last `finish()`, so one packer serves many messages.
 */
export class Packer {
  private buffer: Buffer
  private view: DataView
  private offset = 0
  private messageStart = -1

  constructor(initialBytes = 8192) {
    this.buffer = Buffer.allocUnsafe(initialBytes)
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength)
  }

  /** The bytes packed since the previous call (a copy: the packer reuses its buffer). */
  finish(): Buffer {
    const out = Buffer.from(this.buffer.subarray(0, this.offset))
    this.offset = 0
    return out
  }

  /** Bytes written and not yet taken. */
  get size(): number {
    return this.offset
  }

  /**
   * Starts a Bolt message framed in place (see chunking.ts): a chunk header that `endMessage` fills in, so
   * responses are packed straight into one buffer with no copy per message.
   */
  beginMessage(): void {
    this.ensure(2)
    this.messageStart = this.offset
    this.offset += 2
  }

  /** Ends the framed message: its size in the header and the end marker (more chunks when it is larger). */
  endMessage(): void {
    const start = this.messageStart
    if (start < 0) throw new PackError('endMessage without beginMessage')
    this.messageStart = -1
    const size = this.offset - start - 2
    if (size <= MAX_CHUNK) {
      this.buffer.writeUInt16BE(size, start)
      this.ensure(2)
      this.buffer[this.offset++] = 0
      this.buffer[this.offset++] = 0
      return
    }
    const body = Buffer.from(this.buffer.subarray(start + 2, this.offset))
    this.offset = start
    for (let from = 0; from < body.length; from += MAX_CHUNK) {
      const piece = body.subarray(from, from + MAX_CHUNK)
      this.ensure(2 + piece.length)
      this.buffer.writeUInt16BE(piece.length, this.offset)
      piece.copy(this.buffer, this.offset + 2)
      this.offset += 2 + piece.length
    }
    this.ensure(2)
    this.buffer[this.offset++] = 0
    this.buffer[this.offset++] = 0
  }

  pack(value: PackValue): void {
    if (value === null) {
      this.byte(Marker.Null)
      return
    }
    switch (typeof value) {
      case 'boolean':
        this.byte(value ? Marker.True : Marker.False)
        return
      case 'bigint':
        this.int(value)
        return
      case 'number':
        this.float(value)
        return
      case 'string':
        this.string(value)
        return
    }
    if (value instanceof Uint8Array) {
      this.bytes(value)
      return
    }
    if (Array.isArray(value)) {
      this.header(value.length, Marker.TinyList, Marker.List8, Marker.List16, Marker.List32)
      for (const item of value) this.pack(item)
      return
    }
    if (value instanceof Map) {
      this.mapHeader(value.size)
      for (const [key, item] of value) {
        this.string(key)
        this.pack(item)
      }
      return
    }
    if (value instanceof Structure) {
      this.structure(value.signature, value.fields)
      return
    }
    throw new PackError(`cannot pack a value of type ${typeof value}`)
  }

  structure(signature: number, fields: readonly PackValue[]): void {
    this.structureHeader(signature, fields.length)
    for (const field of fields) this.pack(field)
  }

  /** A structure's marker and signature; the caller packs its `size` fields after it. */
  structureHeader(signature: number, size: number): void {
    if (size > 15) throw new PackError(`a structure holds at most 15 fields, not ${size}`)
    this.byte(Marker.TinyStruct | size)
    this.byte(signature)
  }

  /** A map header; the caller writes `size` key/value pairs after it. */
  mapHeader(size: number): void {
    this.header(size, Marker.TinyMap, Marker.Map8, Marker.Map16, Marker.Map32)
  }

  listHeader(size: number): void {
    this.header(size, Marker.TinyList, Marker.List8, Marker.List16, Marker.List32)
  }

  int(value: bigint | number): void {
    const n = typeof value === 'bigint' ? value : BigInt(value)
    if (n < INT64_MIN || n > INT64_MAX) throw new PackError('integer outside the 64-bit range')
    if (n >= -16n && n <= 127n) {
      this.byte(Number(n) & 0xff)
      return
    }
    if (n >= -128n && n <= 127n) {
      this.ensure(2)
      this.buffer[this.offset++] = Marker.Int8
      this.view.setInt8(this.offset, Number(n))
      this.offset += 1
      return
    }
    if (n >= -32768n && n <= 32767n) {
      this.ensure(3)
      this.buffer[this.offset++] = Marker.Int16
      this.view.setInt16(this.offset, Number(n))
      this.offset += 2
      return
    }
    if (n >= -2147483648n && n <= 2147483647n) {
      this.ensure(5)
      this.buffer[this.offset++] = Marker.Int32
      this.view.setInt32(this.offset, Number(n))
      this.offset += 4
      return
    }
    this.ensure(9)
    this.buffer[this.offset++] = Marker.Int64
    this.view.setBigInt64(this.offset, n)
    this.offset += 8
  }

  float(value: number): void {
    this.ensure(9)
    this.buffer[this.offset++] = Marker.Float64
    this.view.setFloat64(this.offset, value)
    this.offset += 8
  }

  string(value: string): void {
    const length = Buffer.byteLength(value, 'utf8')
    this.header(length, Marker.TinyString, Marker.String8, Marker.String16, Marker.String32)
    this.ensure(length)
    this.offset += this.buffer.write(value, this.offset, length, 'utf8')
  }

  private bytes(value: Uint8Array): void {
    const length = value.byteLength
    if (length <= 0xff) this.sized(Marker.Bytes8, length, 1)
    else if (length <= 0xffff) this.sized(Marker.Bytes16, length, 2)
    else if (length <= 0xffffffff) this.sized(Marker.Bytes32, length, 4)
    else throw new PackError('byte array too long')
    this.ensure(length)
    this.buffer.set(value, this.offset)
    this.offset += length
  }

  private header(size: number, tiny: number, m8: number, m16: number, m32: number): void {
    if (size < 0x10) {
      this.byte(tiny | size)
      return
    }
    if (size <= 0xff) {
      this.sized(m8, size, 1)
      return
    }
    if (size <= 0xffff) {
      this.sized(m16, size, 2)
      return
    }
    if (size <= 0xffffffff) {
      this.sized(m32, size, 4)
      return
    }
    throw new PackError(`size ${size} does not fit PackStream`)
  }

  private sized(marker: number, size: number, width: 1 | 2 | 4): void {
    this.ensure(1 + width)
    this.buffer[this.offset++] = marker
    if (width === 1) this.buffer[this.offset] = size
    else if (width === 2) this.view.setUint16(this.offset, size)
    else this.view.setUint32(this.offset, size)
    this.offset += width
  }

  private byte(value: number): void {
    this.ensure(1)
    this.buffer[this.offset++] = value
  }

  private ensure(bytes: number): void {
    if (this.offset + bytes <= this.buffer.length) return
    let size = this.buffer.length * 2
    while (size < this.offset + bytes) size *= 2
    const grown = Buffer.allocUnsafe(size)
    this.buffer.copy(grown, 0, 0, this.offset)
    this.buffer = grown
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength)
  }
}
