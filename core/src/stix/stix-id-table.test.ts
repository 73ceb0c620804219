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
})
