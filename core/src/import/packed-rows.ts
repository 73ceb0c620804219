/**
 * Parsed CSV records packed flat: every field's text one after another in one string, the end offset of each
 * field in `ends`, and where each record's fields stop in `rowEnds`. A batch crosses from the parsing thread
 * as one string and two transferred buffers instead of an array and a string per field, and the importer
 * reads integer fields straight from the text without cutting a string out of it.
 */
export interface PackedRows {
  text: string
  /** `ends[k]`: the offset in `text` after field k (fields counted over the whole batch). */
  ends: Uint32Array
  /** `rowEnds[i]`: the number of fields in records 0..i together. */
  rowEnds: Uint32Array
}

/** Fills a packed batch record by record. */
export class PackedRowsBuilder {
  private parts: string[] = []
  private length = 0
  private ends = new Uint32Array(1024)
  private fields = 0
  private rowEnds: number[] = []

  get rows(): number {
    return this.rowEnds.length
  }

  add(record: readonly string[]): void {
    if (this.fields + record.length > this.ends.length) {
      const grown = new Uint32Array(Math.max(this.ends.length * 2, this.fields + record.length))
      grown.set(this.ends)
      this.ends = grown
    }
    for (const field of record) {
      this.parts.push(field)
      this.length += field.length
      this.ends[this.fields++] = this.length
    }
    this.rowEnds.push(this.fields)
  }

  /** The batch so far; the builder starts empty again. */
  take(): PackedRows {
    const packed = {
      text: this.parts.join(''),
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
  private batch: PackedRows = { text: '', ends: new Uint32Array(0), rowEnds: new Uint32Array(0) }
  /** Index in `batch.ends` of the record's first field. */
  private first = 0

  /** Points at record `index` of `batch`. */
  at(batch: PackedRows, index: number): void {
    this.batch = batch
    this.first = index === 0 ? 0 : batch.rowEnds[index - 1]!
    this.count = batch.rowEnds[index]! - this.first
  }

  private start(k: number): number {
    return k === 0 ? 0 : this.batch.ends[k - 1]!
  }

  field(j: number): string {
    const k = this.first + j
    return this.batch.text.slice(this.start(k), this.batch.ends[k])
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
    let i = this.start(k)
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
