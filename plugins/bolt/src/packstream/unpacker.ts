import { Marker, type PackValue, Structure } from './structure.js'

export interface UnpackLimits {
  /** Nesting of lists, maps and structures. */
  maxDepth: number
  /** Elements of one list, entries of one map. */
  maxContainerSize: number
}

export const DEFAULT_UNPACK_LIMITS: Readonly<UnpackLimits> = Object.freeze({
  maxDepth: 64,
  maxContainerSize: 1_000_000,
})

/** The bytes are not valid PackStream, or go past a limit. */
export class UnpackError extends Error {
  override readonly name = 'UnpackError'
}

/**
 * Reads PackStream v1 from one message's bytes. Bounded: every declared size is checked against the bytes
 * that remain (each element takes at least one) before anything is allocated, and nesting is capped, so a
 * hostile message costs at most about its own size and never overflows the stack.
 */
export class Unpacker {
  private offset = 0
  private readonly view: DataView

  constructor(
    private readonly bytes: Uint8Array,
    private readonly limits: UnpackLimits = DEFAULT_UNPACK_LIMITS,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  get remaining(): number {
    return this.bytes.byteLength - this.offset
  }

  unpack(depth = 0): PackValue {
    const marker = this.u8()
    if (marker < 0x80) return BigInt(marker)
    if (marker >= 0xf0) return BigInt(marker - 0x100)
    const high = marker & 0xf0
    const low = marker & 0x0f
    switch (high) {
      case Marker.TinyString:
        return this.string(low)
      case Marker.TinyList:
        return this.list(low, depth)
      case Marker.TinyMap:
        return this.map(low, depth)
      case Marker.TinyStruct:
        return this.structure(low, depth)
    }
    switch (marker) {
      case Marker.Null:
        return null
      case Marker.True:
        return true
      case Marker.False:
        return false
      case Marker.Float64:
        return this.read(8, (at) => this.view.getFloat64(at))
      case Marker.Int8:
        return BigInt(this.read(1, (at) => this.view.getInt8(at)))
      case Marker.Int16:
        return BigInt(this.read(2, (at) => this.view.getInt16(at)))
      case Marker.Int32:
        return BigInt(this.read(4, (at) => this.view.getInt32(at)))
      case Marker.Int64:
        return this.read(8, (at) => this.view.getBigInt64(at))
      case Marker.Bytes8:
        return this.byteArray(this.u8())
      case Marker.Bytes16:
        return this.byteArray(this.u16())
      case Marker.Bytes32:
        return this.byteArray(this.u32())
      case Marker.String8:
        return this.string(this.u8())
      case Marker.String16:
        return this.string(this.u16())
      case Marker.String32:
        return this.string(this.u32())
      case Marker.List8:
        return this.list(this.u8(), depth)
      case Marker.List16:
        return this.list(this.u16(), depth)
      case Marker.List32:
        return this.list(this.u32(), depth)
      case Marker.Map8:
        return this.map(this.u8(), depth)
      case Marker.Map16:
        return this.map(this.u16(), depth)
      case Marker.Map32:
        return this.map(this.u32(), depth)
    }
    throw new UnpackError(`unknown PackStream marker 0x${marker.toString(16).padStart(2, '0')}`)
  }

  private list(size: number, depth: number): PackValue[] {
    this.container(size, 1, depth)
    const out: PackValue[] = new Array(size)
    for (let i = 0; i < size; i++) out[i] = this.unpack(depth + 1)
    return out
  }

  private map(size: number, depth: number): Map<string, PackValue> {
    // A key and a value: at least two bytes an entry.
    this.container(size, 2, depth)
    const out = new Map<string, PackValue>()
    for (let i = 0; i < size; i++) {
      const key = this.unpack(depth + 1)
      if (typeof key !== 'string') throw new UnpackError('a map key is not a string')
      out.set(key, this.unpack(depth + 1))
    }
    return out
  }

  private structure(size: number, depth: number): Structure {
    this.container(size, 1, depth)
    const signature = this.u8()
    const fields: PackValue[] = new Array(size)
    for (let i = 0; i < size; i++) fields[i] = this.unpack(depth + 1)
    return new Structure(signature, fields)
  }

  private container(size: number, minBytesEach: number, depth: number): void {
    if (depth >= this.limits.maxDepth) throw new UnpackError(`nesting deeper than ${this.limits.maxDepth}`)
    if (size > this.limits.maxContainerSize)
      throw new UnpackError(
        `a container of ${size} elements is over the limit ${this.limits.maxContainerSize}`,
      )
    if (size * minBytesEach > this.remaining)
      throw new UnpackError(`a container declares ${size} elements but only ${this.remaining} bytes remain`)
  }

  private string(length: number): string {
    this.need(length)
    const text = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.offset, length).toString('utf8')
    this.offset += length
    return text
  }

  private byteArray(length: number): Uint8Array {
    this.need(length)
    // A plain copy: the message buffer is not kept alive by a value taken from it.
    const out = new Uint8Array(this.bytes.subarray(this.offset, this.offset + length))
    this.offset += length
    return out
  }

  private u8(): number {
    this.need(1)
    return this.bytes[this.offset++] as number
  }

  private u16(): number {
    return this.read(2, (at) => this.view.getUint16(at))
  }

  private u32(): number {
    return this.read(4, (at) => this.view.getUint32(at))
  }

  private read<T>(width: number, get: (at: number) => T): T {
    this.need(width)
    const value = get(this.offset)
    this.offset += width
    return value
  }

  private need(bytes: number): void {
    if (bytes > this.remaining) throw new UnpackError('the message ends inside a value')
  }
}
