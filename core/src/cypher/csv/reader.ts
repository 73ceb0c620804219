import { createReadStream } from 'node:fs'
import { pipeline, Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { type Options, Parser } from 'csv-parse'
import { parse as parseRecord } from 'csv-parse/sync'
import type { CsvLocation } from './location.js'
import { resourceFailed } from './location.js'
import type { CsvRecord } from './position.js'
import { QuoteFreeRecords } from './quote-free.js'

export interface CsvReadOptions {
  /** FIELDTERMINATOR: one character (default `,`). */
  delimiter: string
  signal?: AbortSignal | undefined
  /** Bytes read from a file at a time (tests make chunk boundaries fall everywhere). */
  readBytes?: number | undefined
}

/** A record longer than this is a runaway quote, not data: the reader fails instead of buffering the file. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024
/** Lines up to this long go the fast way (a line is carried whole from one read to the next until it ends). */
const FAST_LINE_BYTES = 1024 * 1024

/** What the parser hands over per record (csv-parse's `raw` option), with the line `LinedParser` adds. */
interface RawRecord {
  record: string[]
  raw: string
  line: number
}

/**
 * csv-parse's stream, each record handed over with the line the parser has reached: what its `info` option
 * reports, read from the parser's public `info` as the record is pushed, without the object per record (and,
 * with a `cast` function, per field) that csv-parse builds for those options, which cost a third of a load.
 */
class LinedParser extends Parser {
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk !== null) (chunk as RawRecord).line = this.info.lines
    return super.push(chunk, encoding)
  }
}

/** The parser's options: RFC 4180 quoting (`""` inside a quoted field is a quote), ragged rows allowed. */
const parserOptions = (delimiter: string): Options => ({
  delimiter,
  bom: true,
  relax_column_count: true,
  skip_empty_lines: true,
  max_record_size: MAX_RECORD_BYTES,
})

/** An empty field read without quotes is null; a quoted one (`""`) stays the empty string. */
const nullUnquotedEmpty = (value: string, context: { quoting: boolean }) =>
  value === '' && !context.quoting ? (null as unknown as string) : value

/**
 * The record's fields as Neo4j reads them: an unquoted empty field is null. Only a record with an empty field
 * and a quote somewhere needs to know which empty fields were quoted: its raw text is walked field by field with
 * the parsed values' lengths (a quoted field is its value with each quote doubled, between quotes). Should the
 * walk not meet the text, the record is parsed again with a `cast` that sees the quoting.
 */
function nullEmptyFields(item: RawRecord, delimiter: string): (string | null)[] {
  const record = item.record
  if (!record.includes('')) return record
  const raw = item.raw
  if (!raw.includes('"')) return record.map((field) => (field === '' ? null : field))
  return quotedEmpties(record, raw, delimiter) ?? parseAgain(raw, delimiter)
}

/** The fields with unquoted empties null, read off the raw text; undefined when the text is not as expected. */
function quotedEmpties(record: string[], raw: string, delimiter: string): (string | null)[] | undefined {
  const fields: (string | null)[] = new Array(record.length)
  // csv-parse drops a leading byte order mark before the raw text starts; a mark kept would be skipped here
  let at = raw.charCodeAt(0) === 0xfeff ? 1 : 0
  for (let i = 0; i < record.length; i++) {
    if (i > 0) {
      if (!raw.startsWith(delimiter, at)) return undefined
      at += delimiter.length
    }
    const value = record[i]!
    if (raw.charCodeAt(at) === 0x22) {
      fields[i] = value
      at += value.length + quotes(value) + 2
      if (raw.charCodeAt(at - 1) !== 0x22) return undefined
    } else {
      fields[i] = value === '' ? null : value
      at += value.length
    }
  }
  // what follows the last field is the record delimiter, if anything
  const rest = raw.slice(at)
  return rest === '' || rest === '\n' || rest === '\r\n' || rest === '\r' ? fields : undefined
}

function quotes(value: string): number {
  let n = 0
  for (let i = value.indexOf('"'); i >= 0; i = value.indexOf('"', i + 1)) n++
  return n
}

function parseAgain(raw: string, delimiter: string): (string | null)[] {
  const [again] = parseRecord(raw, { ...parserOptions(delimiter), cast: nullUnquotedEmpty }) as (
    | string
    | null
  )[][]
  return again ?? []
}

/** Streams the records of a resolved source one by one (see readCsvRuns). */
export async function* readCsv(location: CsvLocation, options: CsvReadOptions): AsyncGenerator<CsvRecord> {
  for await (const run of readCsvRuns(location, options)) yield* run
}

/**
 * Streams the records of a resolved source in the runs the parser has ready (a run per chunk of the file,
 * thousands of records): one await a run instead of a promise and a turn of the microtask queue per record
 * through each stage. Bytes are read as the parser asks for them (backpressure: the next chunk is read once
 * the run is taken), gunzipped when the file starts with gzip's magic bytes or is named `.gz`, and parsed by
 * csv-parse with RFC 4180 quoting.
 */
export async function* readCsvRuns(
  location: CsvLocation,
  options: CsvReadOptions,
): AsyncGenerator<CsvRecord[]> {
  const name = location.kind === 'file' ? location.url : location.url.href
  const gzipNamed = (location.kind === 'file' ? location.path : location.url.pathname).endsWith('.gz')
  const bytes =
    location.kind === 'file'
      ? createReadStream(location.path, { highWaterMark: options.readBytes ?? 64 * 1024 })
      : await fetchStream(location.url, options)
  const chunks = gunzipped(bytes, gzipNamed)[Symbol.asyncIterator]()
  let parser: LinedParser | undefined
  try {
    // Plain records go the fast way; csv-parse takes over at a record boundary for the rest.
    const fast = quoteFree(options.delimiter)
    if (fast !== null)
      for (;;) {
        const next = await chunks.next()
        const run = next.done
          ? fast.end()
          : fast.take(Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength))
        if (run === null) break
        if (run.length > 0) yield run
        if (next.done) return
      }
    const newline = fast?.newline
    parser = new LinedParser({
      ...parserOptions(options.delimiter),
      raw: true,
      // a byte order mark only leads the file; the record delimiter stays the one the fast way met
      bom: fast?.atStart ?? true,
      ...(newline === undefined ? {} : { record_delimiter: newline }),
    })
    // Lines go on from where the fast way stopped: records and errors give the file's own line numbers.
    ;(parser.info as { lines: number }).lines += fast?.lines ?? 0
    // Errors of any stage destroy the parser, so the loop below throws them.
    pipeline(Readable.from(continued(fast?.pending(), chunks)), parser, () => {})
    for await (const items of runsOf<RawRecord>(parser)) {
      const run: CsvRecord[] = new Array(items.length)
      for (let i = 0; i < items.length; i++) {
        const item = items[i] as RawRecord
        run[i] = { fields: nullEmptyFields(item, options.delimiter), line: item.line }
      }
      yield run
    }
  } catch (error) {
    throw resourceFailed(`cannot load the external resource at '${name}': ${(error as Error).message}`)
  } finally {
    parser?.destroy()
    await chunks.return?.(undefined)
    if (bytes instanceof Readable) bytes.destroy()
  }
}

/** The fast way for this delimiter: one ASCII byte that is no quote or line end (any other: csv-parse). */
function quoteFree(delimiter: string): QuoteFreeRecords | null {
  const byte = delimiter.length === 1 ? delimiter.charCodeAt(0) : -1
  return byte < 0 || byte >= 0x80 || byte === 0x22 || byte === 0x0a || byte === 0x0d
    ? null
    : new QuoteFreeRecords(byte, FAST_LINE_BYTES)
}

/** `first` (when not empty), then what is left of `rest`. */
async function* continued(
  first: Buffer | undefined,
  rest: AsyncIterator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  if (first !== undefined && first.length > 0) yield first
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value
}

/**
 * The objects of a readable stream in the runs it holds buffered: everything `read()` gives now, then a wait
 * for more (or the end, or the error that destroyed it).
 */
async function* runsOf<T>(stream: Readable): AsyncGenerator<T[]> {
  for (;;) {
    const run: T[] = []
    for (let item = stream.read() as T | null; item !== null; item = stream.read() as T | null) run.push(item)
    if (run.length > 0) {
      yield run
      continue
    }
    if (stream.errored) throw stream.errored
    if (stream.readableEnded || stream.destroyed) return
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        stream.off('readable', settle)
        stream.off('end', settle)
        stream.off('close', settle)
        stream.off('error', settle)
        if (error instanceof Error) reject(error)
        else resolve()
      }
      stream.on('readable', settle)
      stream.on('end', settle)
      stream.on('close', settle)
      stream.on('error', settle)
    })
  }
}

/** The body of an allowed URL, streamed; redirects are refused (they could lead to an address not allowed). */
async function fetchStream(url: URL, options: CsvReadOptions): Promise<Readable> {
  let response: Response
  try {
    response = await fetch(url, { redirect: 'error', ...(options.signal ? { signal: options.signal } : {}) })
  } catch (error) {
    throw resourceFailed(`cannot load the external resource at '${url.href}': ${(error as Error).message}`)
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel()
    throw resourceFailed(`cannot load the external resource at '${url.href}': HTTP ${response.status}`)
  }
  return Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>)
}

const isGzip = (chunk: Uint8Array): boolean => chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b

/** The bytes as they are, or gunzipped when the first chunk carries gzip's magic bytes (or the name says so). */
async function* gunzipped(source: AsyncIterable<Uint8Array>, named: boolean): AsyncGenerator<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]()
  const first = await iterator.next()
  if (first.done) return
  async function* all(): AsyncGenerator<Uint8Array> {
    yield first.value
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value
  }
  if (!named && !isGzip(first.value)) {
    yield* all()
    return
  }
  const gunzip = createGunzip()
  pipeline(Readable.from(all()), gunzip, () => {})
  yield* gunzip
}
