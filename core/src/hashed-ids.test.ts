import { describe, expect, it } from 'vitest'
import { HashedIds, hashNumber, hashString } from './hashed-ids.js'
import { random as seeded } from './testing/assistant-memory.js'

function random(seed: number) {
  const next = seeded(seed)
  return (n: number) => Math.floor(next() * n)
}

describe('hashed ids', () => {
  for (const [name, hash] of [
    ['a good hash', hashString],
    ['a hash that collides on purpose (8 values)', (key: string) => key.length % 8],
  ] as const) {
    it(`files, finds and removes ids exactly as a map of sets does, with ${name}`, () => {
      const int = random(name.length)
      // The records hold their keys: the table asks them to tell hits from collisions.
      const keyOf = new Map<number, string>()
      const table = new HashedIds<string>(hash, (id, key) => keyOf.get(id) === key)
      const model = new Map<string, Set<number>>()
      const keys = Array.from({ length: 300 }, (_, i) => `key ${i} ${'x'.repeat(i % 13)}`)
      for (let step = 0; step < 20_000; step++) {
        const id = int(2000)
        const current = keyOf.get(id)
        if (current !== undefined && int(3) === 0) {
          table.remove(current, id)
          model.get(current)?.delete(id)
          keyOf.delete(id)
        } else if (current === undefined) {
          const key = keys[int(keys.length)] as string
          keyOf.set(id, key)
          table.add(key, id)
          table.add(key, id) // filed once
          if (!model.has(key)) model.set(key, new Set())
          model.get(key)?.add(id)
        }
        if (step % 1000 === 0)
          for (const key of keys) {
            const want = [...(model.get(key) ?? [])].sort((a, b) => a - b)
            expect((table.get(key) ?? []).sort((a, b) => a - b)).toEqual(want)
          }
      }
      expect(table.size).toBe(keyOf.size)
    })
  }

  it('removes by the key an id was filed under, after the record changed', () => {
    const keyOf = new Map([[7, 'new']])
    const table = new HashedIds<string>(hashString, (id, key) => keyOf.get(id) === key)
    table.add('old', 7)
    table.add('new', 7)
    expect(table.get('old')).toBeUndefined() // the record no longer holds it
    table.remove('old', 7)
    expect(table.size).toBe(1)
    expect(table.get('new')).toEqual([7])
  })

  it('keeps number keys itself when asked: hits need no record, equal keys of several ids all come back', () => {
    const table = new HashedIds<number>(hashNumber, () => false, true)
    const int = random(7)
    const model = new Map<number, Set<number>>()
    for (let id = 0; id < 5000; id++) {
      const key = int(300) * (int(2) === 0 ? 1 : 0.5)
      table.add(key, id)
      if (!model.has(key)) model.set(key, new Set())
      model.get(key)?.add(id)
      if (id % 3 === 0) {
        table.remove(key, id)
        model.get(key)?.delete(id)
      }
    }
    for (const [key, ids] of model)
      expect((table.get(key) ?? []).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b))
    expect(table.get(1e9)).toBeUndefined()
  })

  it('hashes numbers by value, -0 as 0', () => {
    expect(hashNumber(-0)).toBe(hashNumber(0))
    expect(hashNumber(1)).toBe(hashNumber(1.0))
    expect(hashNumber(1)).not.toBe(hashNumber(2))
  })
})
