import { createReadStream } from 'node:fs'
import type { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import papa from 'papaparse'
import { EngineError } from '../errors.js'
import { type PackedRows, PackedRowsBuilder } from './packed-rows.js'

/** How the input files are written: neo4j-admin's `--delimiter`, `--quote` and `--array-delimiter`. */
export interface CsvFormat {
  delimiter: string
  quote: string
  arrayDelimiter: string
}

export const DEFAULT_CSV_FORMAT: CsvFormat = { delimiter: ',', quote: '"', arrayDelimiter: ';' }

/** Consecutive records of one file, packed: record i is record `firstRow + i` of `file`. */
export interface CsvBatch {
  file: string
  firstRow: number
  rows: PackedRows
}

const GZIP_MAGIC = [0x1f, 0x8b]

/** The file's bytes, inflated when it is gzip (by its name or its first two bytes). */
async function openInput(file: string): Promise<Readable> {
  const head = await new Promise<Buffer>((resolve, reject) => {
    const probe = createReadStream(file, { start: 0, end: 1 })
    const parts: Buffer[] = []
    probe.on('data', (chunk) => parts.push(chunk as Buffer))
    probe.on('error', reject)
    probe.on('end', () => resolve(Buffer.concat(parts)))
  })
  const raw = createReadStream(file, { highWaterMark: 1 << 16 })
  const gzip = file.endsWith('.gz') || (head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1])
  return gzip ? raw.pipe(createGunzip()).on('error', (e) => raw.destroy(e)) : raw
}

const MAX_RECORD_BYTES = 16 * 1024 * 1024

/** Rows handed over at once: the consumer walks them synchronously, not one promise per row. */
const BATCH_ROWS = 8192

/**
 * The file's line ending: the first one outside quotes in `text` (a quoted field may hold another kind); null
 * while `text` holds none yet.
 */
function lineEnding(text: string, quote: string, atEnd: boolean): '\n' | '\r\n' | '\r' | null {
  const q = quote === '' ? -1 : quote.charCodeAt(0)
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === q) quoted = !quoted
    else if (quoted) continue
    else if (c === 10) return '\n'
    else if (c === 13) {
      if (i === text.length - 1 && !atEnd) return null
      return text.charCodeAt(i + 1) === 10 ? '\r\n' : '\r'
    }
  }
  return atEnd ? '\n' : null
}

type Record = string[]

/** Records parsed into fields, or whole lines without quotes that the packer splits itself. */
type Parsed = { records: Record[] } | { lines: string; delimiter: string; newline: string }

/**
 * The records of one file in order. papaparse's low-level parser reads the text up to its last line end at a
 * time (so a closing quote is never judged without the character after it); a record cut by that end stays
 * pending for the next chunk. Text holding no quote character skips it: every delimiter and line end splits
 * there (papaparse's own fast mode), which the packer does by offsets, without a string per field.
 */
async function* parseFile(file: string, format: CsvFormat): AsyncGenerator<Parsed> {
  const input = await openInput(file)
  input.setEncoding('utf8')
  let parser: papa.Parser | null = null
  let newline = '\n'
  let pending = ''
  let started = false
  let records = 0
  const fail = (message: string): never => {
    throw new EngineError('IMPORT_INPUT_INVALID', `${file}: ${message}`)
  }
  const parse = (text: string, atEnd: boolean): { parsed: Parsed | null; rest: string } => {
    if (parser === null) {
      const ending = lineEnding(text, format.quote, atEnd)
      if (ending === null) return { parsed: null, rest: text }
      newline = ending
      parser = new papa.Parser({
        delimiter: format.delimiter,
        newline: ending,
        quoteChar: format.quote,
        escapeChar: format.quote,
        // no quote character: every delimiter and line end splits (papaparse's split-only mode)
        ...(format.quote === '' ? { fastMode: true } : {}),
      })
    }
    const cut = atEnd ? text.length : text.lastIndexOf(newline) + newline.length
    if (cut <= 0) return { parsed: null, rest: text }
    const whole = cut === text.length ? text : text.slice(0, cut)
    const rest = atEnd ? '' : text.slice(cut)
    if (format.delimiter.length === 1 && (format.quote === '' || !whole.includes(format.quote))) {
      // counted for the line numbers of later errors: the lines holding a record
      records += countRecords(whole, newline)
      return { parsed: { lines: whole, delimiter: format.delimiter, newline }, rest }
    }
    const result = parser.parse(whole, 0, !atEnd)
    for (const error of result.errors as { code: string; row: number }[]) {
      const at = records + error.row + 1
      if (error.code === 'MissingQuotes')
        fail(`Quote Not Closed: the quoted field of record ${at} never ends`)
      fail(`Invalid Closing Quote: record ${at} has text after a quoted field's closing quote`)
    }
    const rows = (result.data as Record[]).filter((r) => r.length > 1 || r[0] !== '')
    records += rows.length
    return { parsed: { records: rows }, rest: atEnd ? '' : text.slice(result.meta.cursor as number) }
  }
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      let text = pending + chunk
      if (!started) {
        started = true
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      }
      const { parsed, rest } = parse(text, false)
      if (rest.length > MAX_RECORD_BYTES)
        fail(`a record is longer than ${MAX_RECORD_BYTES} characters (a quote not closed?)`)
      pending = rest
      if (parsed !== null) yield parsed
    }
    const { parsed } = parse(pending, true)
    if (parsed !== null) yield parsed
  } finally {
    input.destroy()
  }
}

/** Lines of `text` that are not empty. */
function countRecords(text: string, newline: string): number {
  let count = 0
  let from = 0
  for (;;) {
    const at = text.indexOf(newline, from)
    const end = at < 0 ? text.length : at
    if (end > from) count++
    if (at < 0) return count
    from = at + newline.length
  }
}

/**
 * The records of an input group in order, in packed batches, parsed on this thread and streamed (memory holds
 * a chunk of text and its records, never a file). As in neo4j-admin, the group's first record is its header:
 * the first line of the first file (which may hold nothing else); the files after it hold data only.
 */
export async function* parseGroup(files: readonly string[], format: CsvFormat): AsyncGenerator<CsvBatch> {
  for (const file of files) {
    const batch = new PackedRowsBuilder()
    let firstRow = 1
    const take = (): CsvBatch => {
      const rows = batch.take()
      const batchAt = firstRow
      // counted before the yield: a parsing thread moves the batch's buffers away
      firstRow += rows.rowEnds.length
      return { file, firstRow: batchAt, rows }
    }
    for await (const parsed of parseFile(file, format)) {
      if ('lines' in parsed) {
        // a chunk's lines go whole into one batch: a batch holds up to a chunk's records more
        batch.addLines(parsed.lines, parsed.delimiter, parsed.newline)
        if (batch.rows >= BATCH_ROWS) yield take()
        continue
      }
      for (const record of parsed.records) {
        batch.add(record)
        if (batch.rows >= BATCH_ROWS) yield take()
      }
    }
    if (batch.rows > 0) yield take()
  }
}
