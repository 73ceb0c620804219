import { describe, expect, it } from 'vitest'
import { VersionColumn } from './version-column.js'

describe('version column', () => {
  it('rebuilds every text exactly, encoded or kept', () => {
    const texts = [
      '2024-05-01T10:30:15Z',
      '2024-05-01T10:30:15.1Z',
      '2024-05-01T10:30:15.120Z',
      '2024-05-01T10:30:15.000Z',
      '2024-05-01T10:30:15.123456Z',
      '2024-05-01T10:30:15.123456789Z',
      '1969-12-31T23:59:59.999Z',
      '0001-01-01T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-05-01t10:30:15Z',
      '2024-05-01T10:30:15+02:00',
      '',
      'not a time',
    ]
    const column = new VersionColumn()
    for (const [r, t] of texts.entries()) column.set(r, t)
    for (const [r, t] of texts.entries()) expect(column.text(r)).toBe(t)
  })

  it('grows past its first allocation', () => {
    const column = new VersionColumn()
    const at = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 1001).toISOString()
    for (let r = 0; r < 10_000; r++) column.set(r, at(r))
    for (let r = 0; r < 10_000; r += 997) expect(column.text(r)).toBe(at(r))
  })
})
