/** Bolt messages travel as chunks: a 2-byte big-endian size, that many bytes; a 0-size chunk ends a message. */

const MAX_CHUNK = 0xffff

export class ChunkingError extends Error {
  override readonly name = 'ChunkingError'
}

/**
 * Reassembles messages from the byte stream. A message larger than `maxMessageBytes` is refused as soon as
 * its chunks pass the bound, before more of it is buffered; a 0-size chunk with nothing before it is a
 * keep-alive (NOOP) and yields nothing.
 */
export class Dechunker {
  /** Bytes of the chunk being read that are still to come; -1 while reading a size header. */
  private chunkLeft = -1
  private header: number[] = []
  private readonly parts: Buffer[] = []
  private messageBytes = 0

  constructor(private readonly maxMessageBytes: number) {}

  /** Feeds bytes in; returns every message they complete. Throws ChunkingError past the bound. */
  feed(data: Buffer): Buffer[] {
    const messages: Buffer[] = []
    let at = 0
    while (at < data.length) {
      if (this.chunkLeft < 0) {
        this.header.push(data[at++] as number)
        if (this.header.length < 2) continue
        const size = ((this.header[0] as number) << 8) | (this.header[1] as number)
        this.header = []
        if (size === 0) {
          if (this.parts.length > 0 || this.messageBytes > 0) messages.push(this.takeMessage())
          continue
        }
        if (this.messageBytes + size > this.maxMessageBytes)
          throw new ChunkingError(`a message is larger than the limit of ${this.maxMessageBytes} bytes`)
        this.messageBytes += size
        this.chunkLeft = size
        continue
      }
      const take = Math.min(this.chunkLeft, data.length - at)
      // A copy: the caller may reuse its buffer.
      this.parts.push(Buffer.from(data.subarray(at, at + take)))
      at += take
      this.chunkLeft -= take
      if (this.chunkLeft === 0) this.chunkLeft = -1
    }
    return messages
  }

  private takeMessage(): Buffer {
    const message = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts)
    this.parts.length = 0
    this.messageBytes = 0
    return message
  }

  /** Bytes of an unfinished message held now. */
  get buffered(): number {
    return this.messageBytes
  }
}

/** Splits one message into chunks and appends the end marker. */
export function chunkMessage(message: Buffer): Buffer {
  const chunks = Math.ceil(message.length / MAX_CHUNK)
  const out = Buffer.allocUnsafe(message.length + chunks * 2 + 2)
  let at = 0
  for (let from = 0; from < message.length; from += MAX_CHUNK) {
    const size = Math.min(MAX_CHUNK, message.length - from)
    out.writeUInt16BE(size, at)
    message.copy(out, at + 2, from, from + size)
    at += 2 + size
  }
  out.writeUInt16BE(0, at)
  return out
}
