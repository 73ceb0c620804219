import { describe, expect, it } from 'vitest'
import { batches } from './import-command.js'

describe('batches', () => {
  it('puts nodes before relationships and keeps each batch under the byte bound', () => {
    const objects = [
      { type: 'relationship', id: 'relationship--1', source_ref: 'a', target_ref: 'b' },
      ...Array.from({ length: 10 }, (_, i) => ({
        type: 'malware',
        id: `malware--${i}`,
        name: 'x'.repeat(100),
      })),
      { type: 'sighting', id: 'sighting--1' },
    ]
    const parts = batches(objects, 400)
    const flat = parts.flat()
    expect(flat).toHaveLength(12)
    expect(flat.slice(-2).map((o) => o.type)).toEqual(['relationship', 'sighting'])
    for (const part of parts)
      expect(part.reduce((n, o) => n + JSON.stringify(o).length + 1, 0)).toBeLessThanOrEqual(400)
    // A single object larger than the bound still travels, alone.
    expect(batches([{ type: 'note', id: 'note--1', name: 'y'.repeat(1000) }], 400)).toHaveLength(1)
  })
})
