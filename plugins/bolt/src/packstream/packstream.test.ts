import { describe, expect, it } from 'vitest'
import { Packer } from './packer.js'
import { type PackValue, Sig, Structure } from './structure.js'
import { UnpackError, Unpacker } from './unpacker.js'

const pack = (value: PackValue): Buffer => {
  const packer = new Packer(4)
  packer.pack(value)
  return packer.finish()
}
const unpack = (bytes: Uint8Array, limits?: ConstructorParameters<typeof Unpacker>[1]) =>
  new Unpacker(bytes, limits).unpack()
const hex = (bytes: Buffer) => bytes.toString('hex')

describe('PackStream v1', () => {
  it('packs every integer size class at its edges, and reads each back', () => {
    const cases: [bigint, string][] = [
      [0n, '00'],
      [127n, '7f'],
      [-1n, 'ff'],
      [-16n, 'f0'],
      [-17n, 'c8ef'],
      [-128n, 'c880'],
      [128n, 'c90080'],
      [-129n, 'c9ff7f'],
      [32767n, 'c97fff'],
      [-32768n, 'c98000'],
      [32768n, 'ca00008000'],
      [2147483647n, 'ca7fffffff'],
      [-2147483648n, 'ca80000000'],
      [2147483648n, 'cb0000000080000000'],
      [9223372036854775807n, 'cb7fffffffffffffff'],
      [-9223372036854775808n, 'cb8000000000000000'],
    ]
    for (const [value, bytes] of cases) {
      expect(hex(pack(value)), String(value)).toBe(bytes)
      expect(unpack(Buffer.from(bytes, 'hex'))).toBe(value)
    }
    // A wider class than needed is still read (other packers may not pick the smallest).
    expect(unpack(Buffer.from('cb0000000000000001', 'hex'))).toBe(1n)
    expect(() => pack(1n << 63n)).toThrow(/64-bit/)
  })

  it('keeps floats and integers apart, floats as 64-bit big-endian', () => {
    expect(hex(pack(1.0))).toBe('c13ff0000000000000')
    expect(unpack(pack(1.0))).toBe(1)
    expect(typeof unpack(pack(1.0))).toBe('number')
    expect(typeof unpack(pack(1n))).toBe('bigint')
    expect(unpack(pack(-0.0))).toBe(-0)
    expect(unpack(pack(Number.NaN))).toBeNaN()
    expect(unpack(pack(Number.POSITIVE_INFINITY))).toBe(Number.POSITIVE_INFINITY)
  })

  it('packs null and booleans', () => {
    expect(hex(pack(null))).toBe('c0')
    expect(hex(pack(true))).toBe('c3')
    expect(hex(pack(false))).toBe('c2')
    expect([null, true, false].map((v) => unpack(pack(v)))).toEqual([null, true, false])
  })

  it('picks every size class of strings (UTF-8 byte length), lists, maps and bytes', () => {
    const sizes = [0, 15, 16, 255, 256, 65535, 65536]
    for (const size of sizes) {
      const text = 'a'.repeat(size)
      const list = Array.from({ length: size }, () => null)
      const map = new Map(Array.from({ length: Math.min(size, 70000) }, (_, i) => [`k${i}`, 1n] as const))
      const bytes = new Uint8Array(size).fill(7)
      const marker = (value: PackValue) => pack(value)[0]
      const expected = (tiny: number, base: number) =>
        size < 16 ? tiny | size : size <= 0xff ? base : size <= 0xffff ? base + 1 : base + 2
      expect(marker(text), `string ${size}`).toBe(expected(0x80, 0xd0))
      expect(marker(list), `list ${size}`).toBe(expected(0x90, 0xd4))
      expect(marker(map), `map ${size}`).toBe(expected(0xa0, 0xd8))
      expect(marker(bytes), `bytes ${size}`).toBe(size <= 0xff ? 0xcc : size <= 0xffff ? 0xcd : 0xce)
      expect(unpack(pack(text))).toBe(text)
      expect((unpack(pack(list)) as PackValue[]).length).toBe(size)
      expect((unpack(pack(map)) as Map<string, PackValue>).size).toBe(map.size)
      expect(unpack(pack(bytes))).toEqual(bytes)
    }
    const unicode = 'grüße ☃ \u{1F600}'
    expect(Buffer.byteLength(unicode)).toBe(16) // one byte past tiny: String8
    expect(pack(unicode)[0]).toBe(0xd0)
    expect(unpack(pack(unicode))).toBe(unicode)
  })

  it('packs nested values and structures', () => {
    const value = new Map<string, PackValue>([
      ['list', [1n, 2.5, 'x', [true, null], new Map([['k', -3n]])]],
      ['node', new Structure(Sig.Node, [1n, ['L'], new Map(), 'node--1'])],
    ])
    const back = unpack(pack(value)) as Map<string, PackValue>
    expect(back.get('list')).toEqual([1n, 2.5, 'x', [true, null], new Map([['k', -3n]])])
    const node = back.get('node') as Structure
    expect(node).toBeInstanceOf(Structure)
    expect(node.signature).toBe(Sig.Node)
    expect(node.fields).toEqual([1n, ['L'], new Map(), 'node--1'])
    expect(hex(pack(new Structure(0x70, [new Map()])))).toBe('b170a0')
    expect(() => new Packer().structure(1, new Array(16).fill(null))).toThrow(/15 fields/)
  })

  it('refuses malformed and hostile input without allocating for declared sizes', () => {
    const refuse = (bytes: string, pattern: RegExp) =>
      expect(() => unpack(Buffer.from(bytes, 'hex')), bytes).toThrow(pattern)
    refuse('', /ends inside/)
    refuse('c1000000', /ends inside/)
    refuse('d3', /unknown PackStream marker/) // 0xd3 is reserved
    refuse('df', /unknown PackStream marker/)
    refuse('e0', /unknown PackStream marker/)
    refuse('d2ffffffff', /ends inside/) // a 4 GiB string in 5 bytes
    refuse('d6ffffffff00', /4294967295 elements/) // a 4-billion-element list
    refuse('d6000f424000', /declares 1000000 elements but only 1 bytes remain/)
    refuse('daffffffff', /elements/)
    refuse('ceffffffff', /ends inside/)
    refuse('a18161', /ends inside/) // key 'a', then no value
  })

  it('refuses non-string map keys and nesting past the depth limit', () => {
    expect(() => unpack(Buffer.from('a10101', 'hex'))).toThrow(/map key is not a string/)
    const deep = Buffer.alloc(100, 0x91) // 100 nested one-element lists
    expect(() =>
      unpack(Buffer.concat([deep, Buffer.from([0xc0])]), { maxDepth: 32, maxContainerSize: 10 }),
    ).toThrow(UnpackError)
    expect(() =>
      unpack(Buffer.from('d40a00000000000000000000', 'hex'), { maxDepth: 8, maxContainerSize: 5 }),
    ).toThrow(/over the limit 5/)
  })

  it('reuses one packer for many messages', () => {
    const packer = new Packer(2)
    packer.pack('a long enough string to grow the buffer')
    const first = packer.finish()
    packer.pack(1n)
    expect(hex(packer.finish())).toBe('01')
    expect(unpack(first)).toBe('a long enough string to grow the buffer')
  })
})

describe('framing in place', () => {
  it('frames a small message as one chunk and a large one as several, each ending with 00 00', async () => {
    const { Dechunker } = await import('../chunking.js')
    const packer = new Packer(8)
    packer.beginMessage()
    packer.pack('small')
    packer.endMessage()
    const big = 'x'.repeat(150_000)
    packer.beginMessage()
    packer.pack(big)
    packer.endMessage()
    const wire = packer.finish()
    expect(wire.subarray(0, 2).readUInt16BE(0)).toBe(6)
    const messages = new Dechunker(1 << 20).feed(wire)
    expect(messages.map((m) => new Unpacker(m).unpack())).toEqual(['small', big])
    expect(() => new Packer().endMessage()).toThrow(/without beginMessage/)
  })
})
