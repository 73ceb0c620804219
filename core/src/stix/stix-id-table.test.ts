import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { StixIdTable } from './stix-id-table.js'

describe('STIX id table', () => {
  it('gives each id one dense key and rebuilds its text exactly, across many rehashes', () => {
    const table = new StixIdTable()
    const ids = Array.from({ length: 50_000 }, (_, i) =>
      i % 3 === 0 ? `indicator--${randomUUID()}` : `relationship--${randomUUID()}`,
    )
    for (const [i, id] of ids.entries()) expect(table.key(id)).toBe(i)
    expect(table.size).toBe(ids.length)
    ids.forEach((id, i) => {
      expect(table.find(id)).toBe(i)
      expect(table.key(id)).toBe(i)
      expect(table.id(i)).toBe(id)
    })
    expect(table.find(`indicator--${randomUUID()}`)).toBe(-1)
  })

  it('tells apart the same uuid under two types, and keeps ids of other forms as text', () => {
    const table = new StixIdTable()
    const uuid = '00000000-0000-4000-8000-00000000000a'
    const a = table.key(`malware--${uuid}`)
    const b = table.key(`tool--${uuid}`)
    expect(a).not.toBe(b)
    expect(table.find(`x-custom--${uuid}`)).toBe(-1)
    const odd = ['Malware--ABC', 'indicator--not-a-uuid', 'x--0000000-0000-4000-8000-00000000000a', '']
    const keys = odd.map((id) => table.key(id))
    expect(new Set(keys).size).toBe(odd.length)
    odd.forEach((id, i) => {
      expect(table.find(id)).toBe(keys[i])
      expect(table.id(keys[i] as number)).toBe(id)
    })
    expect(table.id(a)).toBe(`malware--${uuid}`)
    expect(table.id(table.key('identity--ffffffff-ffff-ffff-ffff-ffffffffffff'))).toBe(
      'identity--ffffffff-ffff-ffff-ffff-ffffffffffff',
    )
  })

  it('rebuilds every near-canonical text exactly: mutated ids are either canonical or kept as text', () => {
    const table = new StixIdTable()
    let seed = 11
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
      return seed % n
    }
    const swaps = ['A', 'g', '-', '0', 'f', '', '--', 'Z', '9']
    const texts = new Set<string>()
    for (let i = 0; i < 20_000; i++) {
      const type = ['indicator', 'x-acme-thing', 'a', '0day', 'x--y', '-bad', ''][rand(7)] as string
      let id = `${type}--${randomUUID()}`
      for (let m = rand(3); m > 0; m--) {
        const at = rand(id.length)
        id = `${id.slice(0, at)}${swaps[rand(swaps.length)]}${id.slice(at + 1)}`
      }
      texts.add(id)
    }
    const keys = new Map([...texts].map((t) => [t, table.key(t)]))
    expect(new Set(keys.values()).size).toBe(texts.size)
    for (const [t, key] of keys) {
      expect(table.id(key)).toBe(t)
      expect(table.find(t)).toBe(key)
    }
  })
})
