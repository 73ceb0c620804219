import { describe, expect, it } from 'vitest'
import { random as seeded } from '../testing/assistant-memory.js'
import { PayloadRef, type PayloadStore } from './payload-ref.js'
import type { RelSlot } from './rel-column.js'
import { RelPropertyColumns } from './rel-property-columns.js'
import { joinTypedId, splitTypedId } from './typed-id.js'

/** A payload store in memory: values by offset. */
function memoryPayloads(): PayloadStore {
  const values = new Map<number, string>()
  let end = 0
  return {
    append(text) {
      const offset = end
      values.set(offset, text)
      end += text.length + 7
      return { offset, bytes: Buffer.byteLength(text) }
    },
    read: (address) => values.get(address.offset) as string,
  }
}

function random(seed: number) {
  const next = seeded(seed)
  return { int: (n: number) => Math.floor(next() * n) }
}

const hex = (r: ReturnType<typeof random>, n: number) =>
  Array.from({ length: n }, () => '0123456789abcdef'[r.int(16)]).join('')

/** Ids and near-misses: each must come back exactly as it went in. */
function idLike(r: ReturnType<typeof random>): string {
  const uuid = `${hex(r, 8)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 12)}`
  switch (r.int(8)) {
    case 0:
      return `relationship--${uuid.toUpperCase()}` // upper case: not canonical, stays a string
    case 1:
      return `--${uuid}` // no prefix
    case 2:
      return `x--${uuid.replace('-', 'g')}`
    case 3:
      return `indicator-${uuid}` // one dash
    case 4:
      return `a b--${uuid}` // any prefix round-trips
    default:
      return `${['relationship', 'sighting', 'indicator'][r.int(3)]}--${uuid}`
  }
}

const comparable = (slot: RelSlot | undefined) =>
  slot instanceof PayloadRef ? { ref: [slot.sourceOf(), slot.offset, slot.bytes] } : slot

describe('relationship property columns', () => {
  it('split and join STIX-style ids exactly, and refuse what would not come back the same', () => {
    const bytes = new Uint8Array(16)
    const id = 'relationship--0a1b2c3d-4e5f-4678-9abc-def012345678'
    const prefix = splitTypedId(id, bytes, 0)
    expect(prefix).toBe('relationship')
    expect(joinTypedId(prefix as string, bytes, 0)).toBe(id)
    for (const bad of [
      'relationship--0A1B2C3D-4e5f-4678-9abc-def012345678',
      '--0a1b2c3d-4e5f-4678-9abc-def012345678',
      'relationship-0a1b2c3d-4e5f-4678-9abc-def012345678',
      'relationship--0a1b2c3d4-e5f-4678-9abc-def012345678',
      'relationship--0a1b2c3d-4e5f-4678-9abc-def01234567',
    ])
      expect(splitTypedId(bad, bytes, 0)).toBeNull()
  })

  for (const seed of [1, 2, 3, 4]) {
    it(`read back exactly what a plain map of maps holds, through every operation (seed ${seed})`, () => {
      const r = random(seed)
      const columns = new RelPropertyColumns()
      /** What each slot should hold; `moved`: a long string externalize sent to the payload file. */
      const model = new Map<number, Map<number, RelSlot | { moved: string }>>()
      const sources = [memoryPayloads(), memoryPayloads()]
      const value = (): RelSlot => {
        switch (r.int(7)) {
          case 0:
            return BigInt(r.int(100))
          case 1:
            return [1n, 2n]
          case 2: {
            const source = sources[r.int(4) === 0 ? 1 : 0] as PayloadStore
            const { offset, bytes } = source.append(`payload ${r.int(1000)}`)
            return new PayloadRef(source, offset, bytes)
          }
          case 3:
            return 'x'.repeat(r.int(300))
          default:
            return idLike(r)
        }
      }
      for (let step = 0; step < 5000; step++) {
        const id = r.int(3000)
        const key = r.int(4)
        const op = r.int(20)
        if (op < 14) {
          const v = value()
          columns.set(id, key, v)
          if (!model.has(id)) model.set(id, new Map())
          model.get(id)?.set(key, v)
        } else if (op < 16) {
          columns.delete(id, key)
          model.get(id)?.delete(key)
        } else if (op < 17) {
          columns.clear(id)
          model.delete(id)
        } else if (op < 19) {
          const current = model.get(id)?.get(key)
          const ref = new PayloadRef(sources[0] as PayloadStore, 1, 2)
          const swapped = columns.swapToRef(id, key, typeof current === 'string' ? current : 'absent', ref)
          expect(swapped).toBe(typeof current === 'string')
          if (swapped) model.get(id)?.set(key, ref)
        } else {
          columns.externalize(200, sources[0] as PayloadStore)
          for (const props of model.values())
            for (const [k, v] of props)
              if (typeof v === 'string' && v.length >= 200) props.set(k, { moved: v })
        }
      }
      for (let id = 0; id < 3000; id++) {
        const want = model.get(id) ?? new Map<number, RelSlot | { moved: string }>()
        const keys: number[] = []
        const slots: RelSlot[] = []
        const n = columns.slotsInto(id, keys, slots)
        const got = new Map(keys.slice(0, n).map((k, i) => [k, slots[i]] as const))
        expect(new Set(got.keys())).toEqual(new Set(want.keys()))
        for (const [k, v] of want) {
          const slot = got.get(k)
          const text = (w: RelSlot | { moved: string }) =>
            w instanceof PayloadRef ? w.value() : typeof w === 'object' && 'moved' in w ? w.moved : w
          // A moved string is a reference now that reads the same text; everything else is the same slot.
          if (typeof v === 'object' && 'moved' in v) expect(slot).toBeInstanceOf(PayloadRef)
          else expect(comparable(slot)).toEqual(comparable(v as RelSlot))
          expect(columns.get(id, k)).toEqual(text(v))
          expect(columns.of(id)?.get(k)).toEqual(text(v))
        }
        expect(columns.of(id)?.size ?? 0).toBe(want.size)
      }
    })
  }
})
