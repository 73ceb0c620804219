import type { CsvRecord } from './position.js'

const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d
const BOM = [0xef, 0xbb, 0xbf]

/**
 * LOAD CSV's fast path: records split where the delimiter and line ends are, byte by byte, each field decoded
 * once (ASCII fields as latin1, which is exact for them) instead of csv-parse's per-character state machine (a
 * third of a load of wide rows). Fields may be quoted whole (`"a, b"`) as long as no quote or line end is
 * inside. It answers exactly what csv-parse answers with the reader's options (an unquoted empty field null, a
 * quoted one empty, empty lines skipped, a leading byte order mark dropped, each record with the line it ends
 * on), and hands over to csv-parse at a record boundary (`pending`, `lines`, `newline`) for anything else: an
 * escaped quote or a line end in quotes, a quote inside a field, a line end of another kind than the first
 * one met (csv-parse keeps those in the field and counts lines its own way), a lone CR, a very long line.
 */
export class QuoteFreeRecords {
  /** Line ends taken so far: the next record's lines are counted from here. */
  lines = 0
  /** The record delimiter, once the first line end decided it. */
  newline: '\n' | '\r\n' | undefined
  /** Bytes of an unfinished line, carried to the next chunk. */
  private carry: Buffer | null = null
  /** Before the first byte: a byte order mark may come. */
  private start = true
  private failed: Buffer | null = null

  constructor(
    private readonly delimiter: number,
    /** Longer lines go to csv-parse (a line is carried whole from chunk to chunk until it ends). */
    private readonly maxLineBytes: number,
  ) {}

  /**
   * The records of the lines `chunk` completes, or null when it cannot go the fast way: `pending()` then has
   * the bytes from the last record boundary on, for the full parser.
   */
  take(chunk: Buffer): CsvRecord[] | null {
    let buf = this.carry === null ? chunk : Buffer.concat([this.carry, chunk])
    this.carry = null
    if (this.start) {
      if (buf.length < BOM.length && BOM.slice(0, buf.length).every((b, i) => buf[i] === b)) {
        this.carry = buf // too short to tell a mark from data
        return []
      }
      if (buf[0] === BOM[0] && buf[1] === BOM[1] && buf[2] === BOM[2]) buf = buf.subarray(BOM.length)
      this.start = false
    }
    const records = this.split(buf, false)
    if (records === null) this.failed = buf
    return records
  }

  /** The records of the last line (one without a line end), or null for the full parser (see `take`). */
  end(): CsvRecord[] | null {
    const buf = this.carry ?? Buffer.alloc(0)
    this.carry = null
    const records = this.split(buf, true)
    if (records === null) this.failed = buf
    return records
  }

  /** What the full parser starts from after `take` or `end` answered null. */
  pending(): Buffer {
    return this.failed ?? this.carry ?? Buffer.alloc(0)
  }

  /** Whether the full parser must drop a byte order mark itself (nothing was read yet). */
  get atStart(): boolean {
    return this.start
  }

  private split(buf: Buffer, last: boolean): CsvRecord[] | null {
    const records: CsvRecord[] = []
    const d = this.delimiter
    let lines = this.lines
    let newline = this.newline
    let lineStart = 0
    let fieldStart = 0
    // A quoted field's value, between its quotes (quoteStart < 0: the field is not quoted).
    let quoteStart = -1
    let quoteEnd = -1
    let ascii = true
    let fields: (string | null)[] = []
    const field = (end: number) => {
      const encoding = ascii ? 'latin1' : 'utf8'
      // an empty field is null unless it was quoted
      if (quoteStart >= 0) fields.push(buf.toString(encoding, quoteStart, quoteEnd))
      else fields.push(end === fieldStart ? null : buf.toString(encoding, fieldStart, end))
      quoteStart = -1
      ascii = true
    }
    const endLine = (end: number, next: number) => {
      lines++
      // an empty line holds no record
      if (end > lineStart || fields.length > 0) {
        field(end)
        records.push({ fields, line: lines })
      }
      fields = []
      lineStart = next
      fieldStart = next
    }
    const n = buf.length
    for (let i = 0; i < n; i++) {
      const c = buf[i] as number
      if (c === d) {
        field(i)
        fieldStart = i + 1
      } else if (c === LF) {
        if (newline === '\r\n' || i - lineStart > this.maxLineBytes) return null
        newline = '\n'
        endLine(i, i + 1)
      } else if (c === CR) {
        if (i + 1 === n) {
          if (last) return null
          break // the next chunk tells a CRLF from a lone CR
        }
        if (buf[i + 1] !== LF || newline === '\n' || i - lineStart > this.maxLineBytes) return null
        newline = '\r\n'
        endLine(i, i + 2)
        i++
      } else if (c === QUOTE) {
        // Only a whole field in quotes, without quotes or line ends inside: `"a, b"`, `""`.
        if (i !== fieldStart) return null
        const close = buf.indexOf(QUOTE, i + 1)
        const to = close < 0 ? n : close
        for (let j = i + 1; j < to; j++) {
          const b = buf[j] as number
          if (b === LF || b === CR) return null
          if (b >= 0x80) ascii = false
        }
        if (close < 0 || close + 1 === n) {
          if (close < 0 && last) return null
          if (!last) break // the next chunk tells where the field ends
        } else {
          const after = buf[close + 1] as number
          if (after !== d && after !== LF && after !== CR) return null // `""` inside, or text after the quote
        }
        quoteStart = i + 1
        quoteEnd = close
        i = close
      } else if (c >= 0x80) ascii = false
    }
    if (last) {
      if (lineStart < n || fields.length > 0) {
        field(n)
        records.push({ fields, line: lines + 1 })
      }
    } else if (lineStart < n) {
      if (n - lineStart > this.maxLineBytes) return null
      this.carry = Buffer.from(buf.subarray(lineStart)) // a copy: the chunk need not stay
    }
    this.lines = lines
    this.newline = newline
    return records
  }
}
