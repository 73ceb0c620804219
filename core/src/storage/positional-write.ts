import { writeSync } from 'node:fs'

/**
 * Writes all of `data` at `position` (pwrite), resuming a short write where it stopped; returns the bytes
 * written. Storage files are written at explicit offsets: it is what a database does (the offset of the
 * last durable byte is known exactly), and it keeps storage writes apart from the write(2) calls of sockets
 * and pipes, so a fault injected into pwrite reaches the storage alone.
 */
export function writeAllAt(fd: number, data: string | Buffer, position: number): number {
  if (typeof data === 'string') {
    // Text goes to the call as it is: Node encodes it into a scratch buffer, which costs less than a Buffer
    // object made for it (~8 µs for a log batch of 10 kB). Only a short write (rare) needs its bytes.
    const total = Buffer.byteLength(data, 'utf8')
    const written = writeSync(fd, data, position, 'utf8')
    return written === total ? total : writeRest(fd, Buffer.from(data, 'utf8'), written, position)
  }
  return writeRest(fd, data, 0, position)
}

/** Writes `buffer` from `offset` on, at `position + offset`, until all of it is written; returns its length. */
function writeRest(fd: number, buffer: Buffer, offset: number, position: number): number {
  while (offset < buffer.length) {
    offset += writeSync(fd, buffer, offset, buffer.length - offset, position + offset)
  }
  return buffer.length
}
