import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { readCsv, readCsvRuns } from './reader.js'

/** A small deterministic generator (the test's records are the same on every run). */
function lcg(seed: number) {
  let s = seed
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31
    return s / 2 ** 31
  }
}

const PIECES = ['', '', 'a', 'bc', ' d ', '"', 'x"y', '\n', 'p\r\nq', 'é', 'k', '1.5']

/** A random CSV text: fields quoted or not (a field that needs quotes always has them), CRLF or LF lines. */
function randomCsv(rand: () => number, delimiter: string, records: number): string {
  const lines: string[] = []
  for (let r = 0; r < records; r++) {
    const count = 1 + Math.floor(rand() * 5)
    const fields: string[] = []
    for (let f = 0; f < count; f++) {
      const value = PIECES[Math.floor(rand() * PIECES.length)]!
      const needs = /["\r\n]/.test(value) || value.includes(delimiter)
      fields.push(needs || rand() < 0.3 ? `"${value.replaceAll('"', '""')}"` : value)
    }
    lines.push(fields.join(delimiter))
  }
  return lines.join(rand() < 0.5 ? '\n' : '\r\n')
}

describe('the LOAD CSV reader', () => {
  it.each([',', ';', '\t'])(
    'gives what csv-parse gives with a cast that sees the quoting, lines included (delimiter %j)',
    async (delimiter) => {
      const rand = lcg(delimiter.charCodeAt(0))
      const dir = mkdtempSync(join(tmpdir(), 'csv-reader-'))
      for (let round = 0; round < 5; round++) {
        const text = `${round === 0 ? '\uFEFF' : ''}${randomCsv(rand, delimiter, 400)}`
        const path = join(dir, `r${round}.csv`)
        writeFileSync(path, text)
        const expected = (
          parse(text, {
            delimiter,
            bom: true,
            relax_column_count: true,
            skip_empty_lines: true,
            info: true,
            cast: (value, context) =>
              value === '' && !context.quoting ? (null as unknown as string) : value,
          }) as unknown as { record: (string | null)[]; info: { lines: number } }[]
        ).map((item) => ({ fields: item.record, line: item.info.lines }))
        const read: { fields: (string | null)[]; line: number }[] = []
        for await (const record of readCsv(
          { kind: 'file', path, url: `file:///r${round}.csv` },
          { delimiter },
        ))
          read.push(record)
        expect(read).toEqual(expected)
      }
    },
  )

  it('hands records over in runs of what the parser holds, in order, and fails on a broken record midway', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csv-runs-'))
    const path = join(dir, 'many.csv')
    writeFileSync(path, Array.from({ length: 50_000 }, (_, i) => `${i},x${i}`).join('\n'))
    const runs: number[] = []
    let next = 0
    for await (const run of readCsvRuns(
      { kind: 'file', path, url: 'file:///many.csv' },
      { delimiter: ',' },
    )) {
      runs.push(run.length)
      for (const record of run) {
        expect(record).toEqual({ fields: [String(next), `x${next}`], line: next + 1 })
        next++
      }
    }
    expect(next).toBe(50_000)
    expect(runs.length).toBeLessThan(1000)
    const broken = join(dir, 'broken.csv')
    writeFileSync(
      broken,
      `${Array.from({ length: 20_000 }, (_, i) => `${i}`).join('\n')}\n"never closed\n1\n`,
    )
    let read = 0
    await expect(
      (async () => {
        for await (const run of readCsvRuns(
          { kind: 'file', path: broken, url: 'file:///broken.csv' },
          { delimiter: ',' },
        ))
          read += run.length
      })(),
    ).rejects.toThrow("'file:///broken.csv'")
    expect(read).toBe(20_000)
  })
})
