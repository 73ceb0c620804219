import { describe, expect, it } from 'vitest'
import { BLOCK, padding, readTar, TAR_END, tarHeader } from './tar.js'

async function* chunked(buffer: Buffer, size: number) {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size)
}

function archive(files: [string, Buffer][]): Buffer {
  return Buffer.concat([
    ...files.flatMap(([name, body]) => [tarHeader(name, body.length, 0), body, padding(body.length)]),
    TAR_END,
  ])
}

async function read(bytes: Buffer, chunk: number) {
  const out: [string, string][] = []
  await readTar(chunked(bytes, chunk), (entry) => {
    const parts: Buffer[] = []
    return {
      write: (c) => {
        parts.push(Buffer.from(c))
      },
      end: () => {
        out.push([entry.name, Buffer.concat(parts).toString()])
      },
    }
  })
  return out
}

describe('backup tar', () => {
  const files: [string, Buffer][] = [
    ['manifest.json', Buffer.from('{"a":1}\n')],
    ['wal/empty.jsonl', Buffer.alloc(0)],
    ['checkpoints/x', Buffer.from('z'.repeat(BLOCK * 2 + 7))],
  ]

  it('reads back what it writes, whatever the chunking', async () => {
    const bytes = archive(files)
    expect(bytes.length % BLOCK).toBe(0)
    for (const size of [1, 7, 512, 100_000]) {
      expect(await read(bytes, size)).toEqual(files.map(([n, b]) => [n, b.toString()]))
    }
  })

  it('writes headers POSIX tar accepts: ustar magic and a valid checksum', () => {
    const header = tarHeader('manifest.json', 10, 1_700_000_000_000)
    expect(header.toString('latin1', 257, 263)).toBe('ustar\0')
    expect(header.toString('latin1', 124, 135)).toBe((10).toString(8).padStart(11, '0'))
  })

  it('encodes sizes past 8 GiB in base-256', () => {
    const header = tarHeader('big', 2 ** 34, 0)
    expect(header[124]).toBe(0x80)
    expect(Number(header.readBigUInt64BE(128))).toBe(2 ** 34)
  })

  it('refuses an archive cut short, naming the entry it ends in', async () => {
    const bytes = archive(files)
    await expect(read(bytes.subarray(0, BLOCK + 3), 64)).rejects.toThrow(/ends inside manifest.json/)
    await expect(read(bytes.subarray(0, bytes.length - TAR_END.length), 64)).rejects.toThrow(/cut short/)
  })

  it('refuses a damaged header', async () => {
    const bytes = archive(files)
    bytes[5] = bytes[5]! ^ 1
    await expect(read(bytes, 512)).rejects.toThrow(/checksum/)
  })

  it('refuses over-long names', () => {
    expect(() => tarHeader('n'.repeat(100), 0, 0)).toThrow(/too long/)
  })
})
