import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EngineError } from '../errors.js'
import { type CsvFormat, DEFAULT_CSV_FORMAT, parseGroup } from './csv-source.js'
import { PackedRow } from './packed-rows.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function file(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'csv-source-'))
  dirs.push(dir)
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

async function records(path: string, format: CsvFormat = DEFAULT_CSV_FORMAT): Promise<string[][]> {
  const out: string[][] = []
  const row = new PackedRow()
  for await (const batch of parseGroup([path], format)) {
    expect(batch.firstRow).toBe(out.length + 1)
    for (let i = 0; i < batch.rows.rowEnds.length; i++) {
      row.at(batch.rows, i)
      out.push(row.fields())
    }
  }
  return out
}

/** Writes records as CSV, quoting the fields that need it (and some that do not). */
function csv(rows: string[][], newline: string, d = ',', q = '"'): string {
  const cell = (v: string, k: number) =>
    v.includes(d) || v.includes(q) || v.includes('\n') || v.includes('\r') || k % 7 === 0
      ? `${q}${v.replaceAll(q, q + q)}${q}`
      : v
  return rows.map((r) => r.map(cell).join(d)).join(newline) + newline
}

describe('parseGroup', () => {
  it.each(['\n', '\r\n'])(
    'reads quoted fields holding delimiters, quotes and line ends across read chunks (line end %j)',
    async (newline) => {
      // several MiB: records cross the reader's 1 MiB chunks at many kinds of places
      const pieces = ['plain', 'a,b', 'say "hi"', 'two\nlines', 'crlf\r\ninside', 'é€😀', '', 'x'.repeat(300)]
      const rows = Array.from({ length: 60_000 }, (_, i) => {
        const width = i % 5 === 4 ? 2 : 4 // rows of other widths are the importer's to report, not the parser's
        return Array.from({ length: width }, (_, k) => `${pieces[(i * 3 + k) % pieces.length]}${i}`)
      })
      const path = file('q.csv', `\ufeff${csv(rows, newline)}`)
      expect(await records(path)).toEqual(rows)
    },
  )

  it('takes another delimiter and quote, skips empty lines, and reads a last line with no line end', async () => {
    const path = file('t.tsv', "a\t'b\tc'\n\n'it''s'\t\n\nlast\tone")
    expect(await records(path, { delimiter: '\t', quote: "'", arrayDelimiter: ';' })).toEqual([
      ['a', 'b\tc'],
      ["it's", ''],
      ['last', 'one'],
    ])
  })

  it('reads quote characters as text when there is no quote character', async () => {
    const path = file('n.csv', 'a,"b\nc",d\n')
    expect(await records(path, { ...DEFAULT_CSV_FORMAT, quote: '' })).toEqual([
      ['a', '"b'],
      ['c"', 'd'],
    ])
  })

  it.each([
    ['a,"never closed\n', /Quote Not Closed: the quoted field of record 1/],
    ['ok,1\na,"closed"then,2\n', /Invalid Closing Quote: record 2/],
  ])('fails malformed quoting %j with an input error naming the file and record', async (text, message) => {
    const path = file('bad.csv', text)
    const failure = await records(path).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(EngineError)
    expect(failure).toMatchObject({ code: 'IMPORT_INPUT_INVALID' })
    expect((failure as Error).message).toMatch(message)
    expect((failure as Error).message).toContain(path)
  })
})
