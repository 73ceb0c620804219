import { createReadStream } from 'node:fs'
import type { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { parse } from 'csv-parse'
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
  const raw = createReadStream(file, { highWaterMark: 1 << 20 })
  const gzip = file.endsWith('.gz') || (head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1])
  return gzip ? raw.pipe(createGunzip()).on('error', (e) => raw.destroy(e)) : raw
}

const MAX_RECORD_BYTES = 16 * 1024 * 1024

/** Rows handed over at once: the consumer walks them synchronously, not one promise per row. */
const BATCH_ROWS = 8192

/**
 * The records of an input group in order, in packed batches, parsed on this thread and streamed (memory holds
 * a chunk of text and a batch of rows, never a file). As in neo4j-admin, the group's first record is its
 * header: the first line of the first file (which may hold nothing else); the files after it hold data only.
 */
export async function* parseGroup(files: readonly string[], format: CsvFormat): AsyncGenerator<CsvBatch> {
  for (const file of files) {
    const input = await openInput(file)
    const parser = parse({
      delimiter: format.delimiter,
      quote: format.quote === '' ? false : format.quote,
      // a quote inside a quoted field is doubled, whichever the quote character (neo4j-admin reads it so)
      escape: format.quote === '' ? '"' : format.quote,
      bom: true,
      // a row with too few or too many fields is reported as a bad row, not a parse failure
      relax_column_count: true,
      skip_empty_lines: true,
      // a record longer than this is a runaway quote, not data: fail rather than buffer the file
      max_record_size: MAX_RECORD_BYTES,
    })
    const batch = new PackedRowsBuilder()
    let firstRow = 1
    let ended = false
    let failure: Error | null = null
    let wake: (() => void) | null = null
    const notify = () => {
      const w = wake
      wake = null
      w?.()
    }
    parser.on('data', (fields: string[]) => {
      batch.add(fields)
      if (batch.rows >= BATCH_ROWS) parser.pause()
      notify()
    })
    parser.on('end', () => {
      ended = true
      notify()
    })
    const fail = (error: Error) => {
      failure ??= error
      notify()
    }
    parser.on('error', fail)
    input.on('error', fail)
    input.pipe(parser)
    try {
      for (;;) {
        if (failure !== null)
          throw new EngineError('IMPORT_INPUT_INVALID', `${file}: ${(failure as Error).message}`)
        if (batch.rows > 0) {
          const rows = batch.take()
          // counted before the yield: a parsing thread moves the batch's buffers away
          const count = rows.rowEnds.length
          parser.resume()
          yield { file, firstRow, rows }
          firstRow += count
        } else if (ended) break
        else await new Promise<void>((resolve) => (wake = resolve))
      }
    } finally {
      input.destroy()
      parser.destroy()
    }
  }
}
