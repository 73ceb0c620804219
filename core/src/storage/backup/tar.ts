import { EngineError } from '../../errors.js'

/**
 * A minimal POSIX ustar writer and streaming reader for backup archives: regular files only, names under
 * 100 bytes, sizes in octal (or base-256 past 8 GiB, as GNU tar reads). `tar -tvf` lists what we write.
 * Written here rather than depended on: the subset is small and the reader must bound memory per entry.
 */
export const BLOCK = 512
const OCTAL_SIZE_LIMIT = 8 ** 11

export function tarHeader(name: string, size: number, mtimeMs: number): Buffer {
  const header = Buffer.alloc(BLOCK)
  const nameBytes = Buffer.from(name, 'utf8')
  if (nameBytes.length >= 100) throw new Error(`archive entry name too long: ${name}`)
  nameBytes.copy(header, 0)
  octal(header, 100, 8, 0o644)
  octal(header, 108, 8, 0)
  octal(header, 116, 8, 0)
  if (size < OCTAL_SIZE_LIMIT) octal(header, 124, 12, size)
  else {
    header[124] = 0x80
    header.writeBigUInt64BE(BigInt(size), 124 + 4)
  }
  octal(header, 136, 12, Math.floor(mtimeMs / 1000))
  header.fill(0x20, 148, 156)
  header[156] = 0x30 // '0': a regular file
  header.write('ustar\u000000', 257, 'latin1')
  const sum = header.reduce((n, b) => n + b, 0)
  header.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1')
  return header
}

/** Zero bytes that pad an entry of `size` bytes to a whole block. */
export const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK)

/** Two zero blocks end an archive. */
export const TAR_END = Buffer.alloc(2 * BLOCK)

function octal(header: Buffer, offset: number, width: number, value: number): void {
  header.write(`${value.toString(8).padStart(width - 1, '0')}\u0000`, offset, 'latin1')
}

export interface TarEntryHeader {
  name: string
  size: number
}

/** What the reader hands each entry's bytes to; awaited, so a slow writer slows the read (bounded memory). */
export interface TarEntrySink {
  write(chunk: Buffer): void | Promise<void>
  end(): void | Promise<void>
}

const corrupt = (message: string) => new EngineError('BACKUP_CORRUPT', message)

function parseHeader(block: Buffer): TarEntryHeader | null {
  if (block.every((b) => b === 0)) return null
  const stored = Number.parseInt(block.toString('latin1', 148, 156).replace(/[\0 ]/g, ''), 8)
  const copy = Buffer.from(block)
  copy.fill(0x20, 148, 156)
  if (copy.reduce((n, b) => n + b, 0) !== stored) throw corrupt('an archive header fails its checksum')
  const end = block.indexOf(0, 0)
  const name = block.toString('utf8', 0, end === -1 || end > 100 ? 100 : end)
  const type = String.fromCharCode(block[156]!)
  if (type !== '0' && type !== '\0') throw corrupt(`archive entry ${name} is not a regular file`)
  const size =
    block[124]! & 0x80
      ? Number(block.readBigUInt64BE(124 + 4))
      : Number.parseInt(block.toString('latin1', 124, 136).replace(/[\0 ]/g, '') || '0', 8)
  if (!Number.isSafeInteger(size) || size < 0) throw corrupt(`archive entry ${name} has a bad size`)
  return { name, size }
}

/**
 * Reads an archive from `chunks`, opening a sink per entry. Throws BACKUP_CORRUPT on a bad header and on an
 * archive that ends early (a dropped download), so a truncated backup is never taken for a whole one.
 */
export async function readTar(
  chunks: AsyncIterable<Buffer | string>,
  open: (entry: TarEntryHeader) => TarEntrySink | Promise<TarEntrySink>,
): Promise<void> {
  let pending = Buffer.alloc(0)
  let entry: { sink: TarEntrySink; left: number; pad: number; name: string } | null = null
  let ended = false
  for await (const raw of chunks) {
    pending = pending.length === 0 ? Buffer.from(raw) : Buffer.concat([pending, Buffer.from(raw)])
    while (!ended) {
      if (entry !== null) {
        if (entry.left > 0) {
          if (pending.length === 0) break
          const take = Math.min(entry.left, pending.length)
          await entry.sink.write(pending.subarray(0, take))
          pending = pending.subarray(take)
          entry.left -= take
          continue
        }
        if (pending.length < entry.pad) break
        pending = pending.subarray(entry.pad)
        await entry.sink.end()
        entry = null
      }
      if (pending.length < BLOCK) break
      const header = parseHeader(pending.subarray(0, BLOCK))
      pending = pending.subarray(BLOCK)
      if (header === null) {
        ended = true
        break
      }
      entry = {
        sink: await open(header),
        left: header.size,
        pad: padding(header.size).length,
        name: header.name,
      }
    }
  }
  if (!ended) {
    throw corrupt(
      entry === null
        ? 'the archive ends early (no end-of-archive blocks): the download was cut short'
        : `the archive ends inside ${entry.name}: the download was cut short`,
    )
  }
}
