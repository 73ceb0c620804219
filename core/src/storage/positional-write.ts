import { writeSync } from 'node:fs'

/**
 * Writes all of `data` at `position` (pwrite), resuming a short write where it stopped; returns the bytes
 * written. Storage files are written at explicit offsets: it is what a database does (the offset of the
 * last durable byte is known exactly), and it keeps storage writes apart from the write(2) calls of sockets
 * and pipes, so a fault injected into pwrite reaches the storage alone.
 */
export function writeAllAt(fd: number, data: string | Buffer, position: number): number {
  const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  for (let offset = 0; offset < buffer.length; ) {
    offset += writeSync(fd, buffer, offset, buffer.length - offset, position + offset)
  }
  return buffer.length
}
