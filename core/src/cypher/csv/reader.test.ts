import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
        const expected = parsed(text, delimiter)
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

/** Plain records (LOAD CSV's fast way: whole fields quoted or not), to which the test adds what is not. */
function quoteFreeCsv(rand: () => number, delimiter: string, records: number, newline: string): string {
  const pieces = ['', '', 'a', 'bc', ' d ', 'é', 'ünïcødé long enough', '12345', 'x'.repeat(40), '1.5']
  const quoted = ['""', '"a"', `"${delimiter} in it"`, '"é, ü"', '" "']
  let text = rand() < 0.3 ? '\uFEFF' : ''
  for (let r = 0; r < records; r++) {
    const count = 1 + Math.floor(rand() * 4)
    const fields = Array.from({ length: count }, () =>
      rand() < 0.2
        ? quoted[Math.floor(rand() * quoted.length)]!
        : pieces[Math.floor(rand() * pieces.length)]!,
    )
    text += fields.join(delimiter)
    if (r < records - 1 || rand() < 0.5) text += newline
    if (rand() < 0.05) text += newline // an empty line
  }
  return text
}

/** What csv-parse answers with the reader's options (the oracle). */
function parsed(text: string, delimiter: string) {
  return (
    parse(text, {
      delimiter,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      cast: (value, context) => (value === '' && !context.quoting ? (null as unknown as string) : value),
    }) as unknown as { record: (string | null)[]; info: { lines: number } }[]
  ).map((item) => ({ fields: item.record, line: item.info.lines }))
}

describe("the LOAD CSV reader's fast way for text without quotes", () => {
  it.each([
    [',', '\n'],
    [';', '\r\n'],
    ['\t', '\n'],
  ])(
    'reads what csv-parse reads, chunk boundaries anywhere (delimiter %j, lines %j)',
    async (delimiter, newline) => {
      const rand = lcg(delimiter.charCodeAt(0) * 31 + newline.length)
      const dir = mkdtempSync(join(tmpdir(), 'csv-fast-'))
      try {
        for (let round = 0; round < 12; round++) {
          let text = quoteFreeCsv(rand, delimiter, 150, newline)
          // Now and then something the fast way hands over at: a quoted field, a line end of the other kind, a lone CR.
          const at = text.indexOf(newline, Math.floor(rand() * text.length))
          const cut = at < 0 ? text.length : at + newline.length // at a line's start
          const odd = [
            '"q, ""uoted""\nfield"',
            newline === '\n' ? 'x\r\ny' : 'x\ny',
            'lone\rcr',
            '',
            '"a ""quote"" in it"',
            `"two${newline}lines"`,
          ][round % 6]!
          text = `${text.slice(0, cut)}${odd}${newline}${text.slice(cut)}`
          const path = join(dir, `f${round}.csv`)
          writeFileSync(path, text)
          const expected = parsed(text, delimiter)
          for (const readBytes of [1, 3, 1 + Math.floor(rand() * 200)]) {
            const read: { fields: (string | null)[]; line: number }[] = []
            const location = { kind: 'file' as const, path, url: 'file:///f.csv' }
            for await (const run of readCsvRuns(location, { delimiter, readBytes })) read.push(...run)
            expect(read, `round ${round}, ${readBytes}-byte reads`).toEqual(expected)
          }
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  )

  it('gives the line csv-parse gives for an error after the fast way read the lines before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csv-fast-'))
    try {
      const path = join(dir, 'late.csv')
      writeFileSync(
        path,
        `${Array.from({ length: 5000 }, (_, i) => `${i},v${i}`).join('\n')}\n"never closed\n1\n`,
      )
      await expect(
        (async () => {
          for await (const _run of readCsvRuns(
            { kind: 'file', path, url: 'file:///late.csv' },
            { delimiter: ',' },
          )) {
          }
        })(),
      ).rejects.toThrow(/opening quote at line 5002$/) // as csv-parse alone says
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
