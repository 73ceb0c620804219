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

  it('encodes exactly the texts that Date reads and writes back the same, over random timestamps', () => {
    // The oracle: the parse-and-rebuild check this column used before it read fields by position.
    const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/
    const rebuilds = (text: string): boolean => {
      const m = TIMESTAMP.exec(text)
      if (m === null) return false
      const ms = Date.parse(`${m[1]}Z`)
      if (Number.isNaN(ms)) return false
      const fraction = m[2] ?? ''
      const micros = ms * 1000 + Number(fraction.padEnd(6, '0'))
      if (!Number.isSafeInteger(micros)) return false // far years: exact only by luck, kept as text now
      const seconds = Math.floor(Math.floor(micros / 1000) / 1000)
      const iso = new Date(seconds * 1000).toISOString().slice(0, 19)
      const rest = String(micros - seconds * 1_000_000)
        .padStart(6, '0')
        .slice(0, fraction.length)
      return `${iso}${fraction === '' ? '' : `.${rest}`}Z` === text
    }
    let seed = 7
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
      return seed % n
    }
    const pad = (v: number, w: number) => String(v).padStart(w, '0')
    const texts: string[] = []
    for (let i = 0; i < 20_000; i++) {
      const year = [0, 1, 1600, 1900, 1969, 1970, 2000, 2024, 2100, 9999][rand(10)] as number
      const fields = [pad(year + rand(3), 4), pad(rand(14), 2), pad(rand(33), 2), pad(rand(26), 2)]
      const time = `${fields[3]}:${pad(rand(61), 2)}:${pad(rand(61), 2)}`
      const fraction = ['', '.', `.${pad(rand(1_000_000), 6).slice(0, 1 + rand(7))}`][rand(3)] as string
      let text = `${fields[0]}-${fields[1]}-${fields[2]}T${time}${fraction}Z`
      if (rand(20) === 0) text = text.replace(/\d/, 'x')
      texts.push(text)
    }
    const column = new VersionColumn()
    for (const [r, t] of texts.entries()) column.set(r, t)
    for (const [r, t] of texts.entries()) expect(column.text(r)).toBe(t)
    const kept = texts.filter((t) => !rebuilds(t)).length
    expect(kept).toBeGreaterThan(1000)
    expect(kept).toBeLessThan(19_000)
    expect(column.keptAsText).toBe(kept)
  })
})
