/**
 * Parsed CSV records packed flat: the fields' text in one string, where each field starts and ends in it
 * (`starts`, `ends`, fields counted over the whole batch), and where each record's fields stop (`rowEnds`).
 * A batch crosses from the parsing thread as one string and three transferred buffers instead of an array and
 * a string per field, and the importer reads integer fields straight from the text without cutting a string
 * out of it. Fields the parser made are joined end to end; lines without quotes are kept as they were read,
 * their delimiters and line ends between the fields.
 */
export interface PackedRows {
  text: string
  starts: Uint32Array
  ends: Uint32Array
  /** `rowEnds[i]`: the number of fields in records 0..i together. */
  rowEnds: Uint32Array
}

/** Fills a packed batch record by record, or line by line from text without quotes. */
export class PackedRowsBuilder {
  private parts: string[] = []
  private length = 0
  private starts = new Uint32Array(1024)
  private ends = new Uint32Array(1024)
  private fields = 0
  private rowEnds: number[] = []

  get rows(): number {
    return this.rowEnds.length
  }

  private room(fields: number): void {
    if (this.fields + fields <= this.ends.length) return
    const size = Math.max(this.ends.length * 2, this.fields + fields)
    const starts = new Uint32Array(size)
    starts.set(this.starts)
    this.starts = starts
    const ends = new Uint32Array(size)
    ends.set(this.ends)
    this.ends = ends
  }

  add(record: readonly string[]): void {
    this.room(record.length)
    for (const field of record) {
      this.parts.push(field)
      this.starts[this.fields] = this.length
      this.length += field.length
      this.ends[this.fields++] = this.length
    }
    this.rowEnds.push(this.fields)
  }

  /**
   * Adds the records of `text`: whole lines, each ended by `newline` (the last one may not be), holding no
   * quote character, so every delimiter and line end splits (what papaparse's fast mode does, without a
   * string per field). Empty lines hold no record.
   */
  addLines(text: string, delimiter: string, newline: string): void {
    const base = this.length
    this.parts.push(text)
    this.length += text.length
    const d = delimiter.charCodeAt(0)
    const n = newline.charCodeAt(0)
    const crlf = newline === '\r\n'
    // at most one field per character and one more: room for all at once keeps the loop free of checks
    this.room(text.length + 1)
    const starts = this.starts
    const ends = this.ends
    let fields = this.fields
    let rowStart = fields
    let from = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === d) {
        starts[fields] = base + from
        ends[fields++] = base + i
        from = i + 1
      } else if (c === n && (!crlf || text.charCodeAt(i + 1) === 10)) {
        // an empty line holds no record
        if (fields > rowStart || from < i) {
          starts[fields] = base + from
          ends[fields++] = base + i
          this.rowEnds.push(fields)
          rowStart = fields
        }
        if (crlf) i++
        from = i + 1
      }
    }
    if (from < text.length || fields > rowStart) {
      starts[fields] = base + from
      ends[fields++] = base + text.length
      this.rowEnds.push(fields)
    }
    this.fields = fields
  }

  /** The batch so far; the builder starts empty again. */
  take(): PackedRows {
    const packed = {
      text: this.parts.length === 1 ? this.parts[0]! : this.parts.join(''),
      starts: this.starts.slice(0, this.fields),
      ends: this.ends.slice(0, this.fields),
      rowEnds: Uint32Array.from(this.rowEnds),
    }
    this.parts = []
    this.length = 0
    this.fields = 0
    this.rowEnds = []
    return packed
  }
}

/**
 * One record of a packed batch, moved along the batch (one object for all records): its field count and its
 * fields by position.
 */
export class PackedRow {
  file = ''
  /** The record's 1-based number in its file. */
  row = 0
  count = 0
  private batch: PackedRows = {
    text: '',
    starts: new Uint32Array(0),
    ends: new Uint32Array(0),
    rowEnds: new Uint32Array(0),
  }
  /** Index in `batch.ends` of the record's first field. */
  private first = 0

  /** Points at record `index` of `batch`. */
  at(batch: PackedRows, index: number): void {
    this.batch = batch
    this.first = index === 0 ? 0 : batch.rowEnds[index - 1]!
    this.count = batch.rowEnds[index]! - this.first
  }

  field(j: number): string {
    const k = this.first + j
    return this.batch.text.slice(this.batch.starts[k], this.batch.ends[k])
  }

  fields(): string[] {
    return Array.from({ length: this.count }, (_, j) => this.field(j))
  }

  /**
   * Field j's value when it is up to 15 decimal digits (optionally after `-`), which a double holds exactly;
   * NaN for any other text (the caller then reads the text). Read by character code, no string made.
   */
  shortInteger(j: number): number {
    const k = this.first + j
    const text = this.batch.text
    const end = this.batch.ends[k]!
    let i = this.batch.starts[k]!
    const negative = i < end && text.charCodeAt(i) === 45
    if (negative) i++
    if (end === i || end - i > 15) return Number.NaN
    let v = 0
    for (; i < end; i++) {
      const digit = text.charCodeAt(i) - 48
      if (digit < 0 || digit > 9) return Number.NaN
      v = v * 10 + digit
    }
    return negative ? -v : v
  }
}
