import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PayloadCache } from './payload-cache.js'
import { PAYLOAD_MAGIC, PayloadFile } from './payload-file.js'

let dir: string
let path: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payload-file-'))
  path = join(dir, 'payloads.bin')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const open = (options: { durableBytes?: number; cacheBytes?: number } = {}) =>
  PayloadFile.open(path, { cacheBytes: 1 << 20, ...options })

describe('payload file', () => {
  it('gathers small appends into one write, reads them back before and after it, and keeps them across a reopen', async () => {
    const { file } = open()
    const texts = Array.from({ length: 5000 }, (_, i) => `value ${i} ${'x'.repeat(i % 300)}`)
    const addresses = texts.map((text) => file.append(text))
    expect(file.read(addresses[4999] as (typeof addresses)[number])).toBe(texts[4999])
    const more = file.append('after a read')
    expect(file.peek(more)).toBe('after a read')
    const durable = await file.sync()
    expect(statSync(path).size).toBe(durable)
    file.close()
    const again = open({ durableBytes: durable })
    expect(addresses.map((a) => again.file.read(a))).toEqual(texts)
    expect(again.file.read(more)).toBe('after a read')
    again.file.close()
  })

  it('peeks past the cache: the value, and nothing kept (a scan leaves the cache as it was)', async () => {
    const { file } = open()
    const kept = file.append('kept')
    const scanned = file.append('scanned')
    await file.sync()
    expect(file.read(kept)).toBe('kept')
    const before = file.cacheStats().bytes
    expect(file.peek(scanned)).toBe('scanned')
    expect(file.peek(kept)).toBe('kept')
    expect(file.cacheStats().bytes).toBe(before)
    file.close()
  })

  it('reads back what it appended, across a reopen at the durable size', async () => {
    const { file } = open()
    const texts = ['{"type":"indicator"}', 'é and 漢字 survive', '', 'x'.repeat(100_000)]
    const addresses = texts.map((text) => file.append(text))
    expect(addresses.map((a) => file.read(a))).toEqual(texts)
    const durable = await file.sync()
    expect(durable).toBe(statSync(path).size)
    file.close()
    const again = open({ durableBytes: durable })
    expect(again.droppedBytes).toBe(0)
    expect(addresses.map((a) => again.file.read(a))).toEqual(texts)
    again.file.close()
  })

  it('cuts a torn write at its end back to the durable size the checkpoint recorded', async () => {
    const { file } = open()
    const kept = file.append('kept')
    const durable = await file.sync()
    file.append('appended after the checkpoint')
    file.close()
    // A crash in the middle of the next record's write: its header and half its body.
    const fd = openSync(path, 'a')
    writeSync(fd, Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 65, 66]))
    closeSync(fd)
    const torn = statSync(path).size
    const reopened = open({ durableBytes: durable })
    expect(reopened.droppedBytes).toBe(torn - durable)
    expect(statSync(path).size).toBe(durable)
    expect(reopened.file.read(kept)).toBe('kept')
    // New appends land where the durable prefix ends.
    const next = reopened.file.append('next')
    expect(next.offset).toBe(durable)
    expect(reopened.file.read(next)).toBe('next')
    reopened.file.close()
  })

  it('without a durable size keeps every whole record and drops a torn last one', async () => {
    const { file } = open()
    const first = file.append('first')
    const second = file.append('second')
    await file.sync()
    file.close()
    const whole = statSync(path).size
    writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.from([9, 0, 0, 0, 0, 0, 0, 0, 120])]))
    const reopened = open()
    expect(reopened.droppedBytes).toBe(9)
    expect(statSync(path).size).toBe(whole)
    expect([reopened.file.read(first), reopened.file.read(second)]).toEqual(['first', 'second'])
    reopened.file.close()
  })

  it('reports a corrupted payload instead of returning it', async () => {
    const { file } = open({ cacheBytes: 0 })
    const address = file.append('a payload that will rot')
    await file.sync()
    const bytes = readFileSync(path)
    const at = address.offset + 8 + 3 // a byte inside the value, past its length and checksum
    bytes[at] = (bytes[at] as number) ^ 0xff
    writeFileSync(path, bytes)
    expect(() => file.read(address)).toThrow(
      expect.objectContaining({
        code: 'STORAGE_PAYLOAD_CORRUPT',
        message: expect.stringContaining('checksum'),
      }),
    )
    expect(() => file.read({ offset: address.offset, bytes: address.bytes + 1 })).toThrow(
      expect.objectContaining({ code: 'STORAGE_PAYLOAD_CORRUPT' }),
    )
    expect(() => file.read({ offset: 1 << 30, bytes: 4 })).toThrow(
      expect.objectContaining({
        code: 'STORAGE_PAYLOAD_CORRUPT',
        message: expect.stringContaining('outside'),
      }),
    )
    file.close()
  })

  it('fails recovery when payloads the checkpoint references are missing or the header is gone', async () => {
    const { file } = open()
    file.append('referenced')
    const durable = await file.sync()
    file.close()
    writeFileSync(path, readFileSync(path).subarray(0, durable - 3))
    expect(() => open({ durableBytes: durable })).toThrow(
      expect.objectContaining({
        code: 'STORAGE_RECOVERY_FAILED',
        message: expect.stringContaining('missing'),
      }),
    )
    writeFileSync(path, Buffer.from('not a payload file'))
    expect(() => open()).toThrow(expect.objectContaining({ code: 'STORAGE_RECOVERY_FAILED' }))
    rmSync(path)
    expect(() => open({ durableBytes: durable })).toThrow(
      expect.objectContaining({ code: 'STORAGE_RECOVERY_FAILED' }),
    )
  })

  it('starts a new file with its header, durable at once', () => {
    const { file } = open()
    expect(readFileSync(path)).toEqual(PAYLOAD_MAGIC)
    expect(file.durableSize).toBe(PAYLOAD_MAGIC.length)
    file.close()
  })

  it('answers every read correctly with a cache far smaller than the data', async () => {
    const { file } = open({ cacheBytes: 256 })
    const texts = Array.from({ length: 2000 }, (_, i) => `payload ${i} ${'·'.repeat(i % 97)}`)
    const addresses = texts.map((text) => file.append(text))
    await file.sync()
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < texts.length; i += 1 + round) expect(file.read(addresses[i]!)).toBe(texts[i])
    const stats = file.cacheStats()
    expect(stats.bytes).toBeLessThanOrEqual(256)
    expect(stats.misses).toBeGreaterThan(stats.hits)
    file.close()
  })
})

describe('payload cache', () => {
  it('keeps the most recently used values within its bound, counting what each costs in the heap', () => {
    // Each ASCII entry of 4 characters costs 4 + 100 bytes of heap: two fit in 210, not three.
    const cache = new PayloadCache(210)
    cache.set(1, 'aaaa', 4)
    cache.set(2, 'bbbb', 4)
    expect(cache.get(1)).toBe('aaaa') // 1 is now the most recent
    cache.set(3, 'cccc', 4) // over 210: evicts 2, the least recent
    expect(cache.get(2)).toBeUndefined()
    expect(cache.get(1)).toBe('aaaa')
    expect(cache.get(3)).toBe('cccc')
    cache.set(4, 'x'.repeat(111), 111) // larger than the bound: not kept, nothing evicted
    expect(cache.get(4)).toBeUndefined()
    expect(cache.stats()).toEqual({ bytes: 208, limit: 210, hits: 3, misses: 2 })
    // Not ASCII: two bytes a character in V8, whatever its UTF-8 length.
    const wide = new PayloadCache(1000)
    wide.set(1, 'é'.repeat(100), 200)
    expect(wide.stats().bytes).toBe(300)
  })
})
