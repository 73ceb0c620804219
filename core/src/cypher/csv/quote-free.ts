import type { CsvRecord } from './position.js'

const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d
const BOM = [0xef, 0xbb, 0xbf]

/**
 * LOAD CSV's fast path: records of text holding no quote character, split where the delimiter and line ends
 * are, byte by byte, with each field decoded once (ASCII lines as latin1, which is exact for them) instead of
 * csv-parse's per-character state machine (a third of a load of wide rows). It answers exactly what
 * csv-parse answers with the reader's options (an unquoted empty field null, empty lines skipped, a leading
 * byte order mark dropped, each record with the line it ends on), and hands over to csv-parse at a record
 * boundary (`pending`, `lines`, `newline`) for anything else: a quote, a line end of another kind than the
 * first one met (csv-parse keeps those in the field and counts lines its own way), a lone CR, or a line
 * longer than `maxRecordBytes`.
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
    private readonly maxRecordBytes: number,
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
    let ascii = true
    let fields: (string | null)[] = []
    const field = (end: number) => {
      fields.push(end === fieldStart ? null : buf.toString(ascii ? 'latin1' : 'utf8', fieldStart, end))
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
        if (newline === '\r\n' || i - lineStart > this.maxRecordBytes) return null
        newline = '\n'
        endLine(i, i + 1)
      } else if (c === CR) {
        if (i + 1 === n) {
          if (last) return null
          break // the next chunk tells a CRLF from a lone CR
        }
        if (buf[i + 1] !== LF || newline === '\n' || i - lineStart > this.maxRecordBytes) return null
        newline = '\r\n'
        endLine(i, i + 2)
        i++
      } else if (c === QUOTE) return null
      else if (c >= 0x80) ascii = false
    }
    if (last) {
      if (lineStart < n || fields.length > 0) {
        field(n)
        records.push({ fields, line: lines + 1 })
      }
    } else if (lineStart < n) {
      if (n - lineStart > this.maxRecordBytes) return null
      this.carry = Buffer.from(buf.subarray(lineStart)) // a copy: the chunk need not stay
    }
    this.lines = lines
    this.newline = newline
    return records
  }
}
