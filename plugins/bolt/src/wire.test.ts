import { describe, expect, it } from 'vitest'
import { ChunkingError, chunkMessage, Dechunker } from './chunking.js'
import { answerHandshake, decodeVarInt, encodeVarInt, HandshakeError, readManifestPick } from './handshake.js'

const opening = (...proposals: number[][]) =>
  Buffer.concat([Buffer.from('6060b017', 'hex'), ...proposals.map((p) => Buffer.from(p)), Buffer.alloc(0)])
const pad = (buffer: Buffer) => Buffer.concat([buffer, Buffer.alloc(20 - buffer.length)])

describe('handshake', () => {
  it('answers the highest 5.x inside a range, the classic way', () => {
    const answer = answerHandshake(pad(opening([0, 4, 4, 5], [0, 0, 4, 4])))
    expect(answer.kind).toBe('version')
    expect(answer.reply).toEqual(Buffer.from([0, 0, 4, 5]))
    // A client offering 5.9 down to 5.2 gets 5.8, the highest spoken here.
    expect(answerHandshake(pad(opening([0, 7, 9, 5]))).reply).toEqual(Buffer.from([0, 0, 8, 5]))
    // Exactly 5.0.
    expect(answerHandshake(pad(opening([0, 0, 0, 5]))).reply).toEqual(Buffer.from([0, 0, 0, 5]))
  })

  it('answers zeros when nothing fits, and refuses what is not Bolt', () => {
    const none = answerHandshake(pad(opening([0, 0, 4, 4], [0, 0, 0, 3])))
    expect(none.kind).toBe('none')
    expect(none.reply).toEqual(Buffer.alloc(4))
    expect(() => answerHandshake(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))).toThrow(/HTTP request/)
    expect(() => answerHandshake(Buffer.alloc(20))).toThrow(HandshakeError)
  })

  it('negotiates by manifest when the client asks for it (5.7+ drivers)', () => {
    const answer = answerHandshake(pad(opening([0, 0, 1, 0xff], [0, 8, 8, 5])))
    expect(answer.kind).toBe('manifest')
    // 255.1, one range (5.8 and the 8 minors below), no capabilities.
    expect(answer.reply).toEqual(Buffer.from([0, 0, 1, 0xff, 1, 0, 8, 8, 5, 0]))
    expect(readManifestPick(Buffer.from([0, 0, 8, 5]))).toEqual({ incomplete: true })
    expect(readManifestPick(Buffer.from([0, 0, 8, 5, 0, 0xaa]))).toEqual({
      version: { major: 5, minor: 8 },
      consumed: 5,
    })
    expect(() => readManifestPick(Buffer.from([0, 0, 0, 6, 0]))).toThrow(/did not offer/)
  })

  it('reads and writes varints', () => {
    for (const value of [0, 1, 127, 128, 300, 2 ** 28]) {
      const bytes = encodeVarInt(value)
      expect(decodeVarInt(bytes, 0)).toEqual({ value, length: bytes.length })
    }
    expect(decodeVarInt(Buffer.from([0x80]), 0)).toBeNull()
    expect(() => decodeVarInt(Buffer.alloc(6, 0x80), 0)).toThrow(/longer than 5 bytes/)
  })
})

describe('chunking', () => {
  it('splits a large message into 64 KiB chunks and joins them back, across any feed boundary', () => {
    const message = Buffer.from(Array.from({ length: 150_000 }, (_, i) => i % 251))
    const wire = chunkMessage(message)
    expect(wire.readUInt16BE(0)).toBe(0xffff)
    expect(wire.subarray(-2)).toEqual(Buffer.alloc(2))
    for (const step of [1, 7, 65_537, wire.length]) {
      const dechunker = new Dechunker(1_000_000)
      const out: Buffer[] = []
      for (let at = 0; at < wire.length; at += step) out.push(...dechunker.feed(wire.subarray(at, at + step)))
      expect(out).toHaveLength(1)
      expect(out[0]?.equals(message)).toBe(true)
    }
  })

  it('skips keep-alive (NOOP) chunks and yields pipelined messages in order', () => {
    const dechunker = new Dechunker(1000)
    const wire = Buffer.concat([
      Buffer.alloc(2),
      chunkMessage(Buffer.from('one')),
      Buffer.alloc(2),
      chunkMessage(Buffer.from('two')),
    ])
    expect(dechunker.feed(wire).map(String)).toEqual(['one', 'two'])
  })

  it('refuses a message past the bound before buffering it', () => {
    const dechunker = new Dechunker(100)
    expect(() => dechunker.feed(Buffer.from([0x00, 0x65]))).toThrow(ChunkingError)
    const split = new Dechunker(100)
    split.feed(chunkMessage(Buffer.alloc(60)).subarray(0, 62)) // one 60-byte chunk, message not ended
    expect(() => split.feed(Buffer.from([0x00, 0x40]))).toThrow(/larger than the limit of 100/)
  })
})
