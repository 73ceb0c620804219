import type { ColumnLine } from './column-line.js'
import { type IntPropertyColumns, isIntPropertyColumns } from './int-property-columns.js'

const COMMA = 0x2c
const QUOTE = 0x22
const COLON = 0x3a
const MINUS = 0x2d
const ZERO = 0x30
/** Below this an integer is written digit by digit (a double holds every integer under it exactly). */
const EXACT = 2 ** 53
const INT32 = 2 ** 31

/** Decimal digits of a non-negative int32. */
function int32Digits(x: number): number {
  if (x < 100000) return x < 100 ? (x < 10 ? 1 : 2) : x < 1000 ? 3 : x < 10000 ? 4 : 5
  return x < 10000000 ? (x < 1000000 ? 6 : 7) : x < 100000000 ? 8 : x < 1000000000 ? 9 : 10
}

/** Bytes the longest number text can take: `-` and 17 significant digits with exponent, or 16 digits. */
const MAX_NUMBER_BYTES = 24

/**
 * Encodes column lines as UTF-8 bytes into one reused buffer: the bytes `columnLineText(line) + '\n'` gives,
 * without making that string. A column of thousands of ids would otherwise become a string per number
 * (`join`) and then be encoded once for the hash and once for the write.
 */
export class ColumnLineBytes {
  private buffer = Buffer.allocUnsafe(1 << 16)
  private at = 0

  /** The line's bytes, newline included: valid until the next call. */
  encode(line: ColumnLine): Buffer {
    this.at = 0
    this.byte(0x7b)
    for (let i = 0; i < line.fields.length; i++) {
      const [name, value] = line.fields[i]!
      if (i > 0) this.byte(COMMA)
      this.text(JSON.stringify(name))
      this.byte(COLON)
      if (typeof value === 'string') this.text(value)
      else if (isIntPropertyColumns(value)) this.intProperties(value)
      else this.numbers(value)
    }
    this.byte(0x7d)
    this.byte(0x0a)
    return this.buffer.subarray(0, this.at)
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes))
    this.buffer.copy(grown, 0, 0, this.at)
    this.buffer = grown
  }

  private byte(code: number): void {
    this.room(1)
    this.buffer[this.at++] = code
  }

  private text(text: string): void {
    // three bytes per UTF-16 unit is the most UTF-8 takes (a surrogate pair: two units, four bytes)
    this.room(text.length * 3)
    this.at += this.buffer.write(text, this.at, 'utf8')
  }

  /** A JSON array of the numbers, as `[${values.join(',')}]` writes them. */
  private numbers(values: Float64Array): void {
    this.room(2 + values.length * (MAX_NUMBER_BYTES + 1))
    const buffer = this.buffer
    let at = this.at
    buffer[at++] = 0x5b
    for (let i = 0; i < values.length; i++) {
      if (i > 0) buffer[at++] = COMMA
      at = writeNumber(buffer, at, values[i]!)
    }
    buffer[at++] = 0x5d
    this.at = at
  }

  /** `{"<row>":{"<name>":{"i":"<value>"},…},…}` (see `IntPropertyColumns`). */
  private intProperties(props: IntPropertyColumns): void {
    const names = props.names.map((name) => Buffer.from(`${JSON.stringify(name)}:{"i":"`))
    const longest = names.reduce((n, b) => Math.max(n, b.length), 0)
    this.byte(0x7b)
    let first = true
    for (let row = 0; row < props.orders.length; row++) {
      const order = props.orders[row]!
      if (order === 0) continue
      const keys = props.keyOrders[order - 1]!
      this.room(MAX_NUMBER_BYTES + 4 + keys.length * (longest + MAX_NUMBER_BYTES + 4))
      if (!first) this.buffer[this.at++] = COMMA
      first = false
      this.buffer[this.at++] = QUOTE
      this.at = writeNumber(this.buffer, this.at, row)
      this.buffer[this.at++] = QUOTE
      this.buffer[this.at++] = COLON
      this.buffer[this.at++] = 0x7b
      for (let j = 0; j < keys.length; j++) {
        const k = keys[j]!
        if (j > 0) this.buffer[this.at++] = COMMA
        this.at += names[k]!.copy(this.buffer, this.at)
        this.at = writeNumber(this.buffer, this.at, props.columns[k]![row]!)
        this.buffer[this.at++] = QUOTE
        this.buffer[this.at++] = 0x7d
      }
      this.buffer[this.at++] = 0x7d
    }
    this.byte(0x7d)
  }
}

/** Writes `value` as `String(value)` spells it at `at` (the caller made room); returns the offset after it. */
function writeNumber(buffer: Buffer, at: number, value: number): number {
  let v = value
  if (!Number.isInteger(v) || v >= EXACT || v <= -EXACT) {
    // fractions, huge values, NaN and infinities: the number's own text
    return at + buffer.write(String(v), at, 'latin1')
  }
  if (v < 0) {
    buffer[at++] = MINUS
    v = -v
  }
  // -0 is written as 0, as String(-0) is
  if (v < INT32) {
    // int32 arithmetic: the division by 10 compiles to a multiplication
    let x = v | 0
    const digits = int32Digits(x)
    for (let d = at + digits - 1; d >= at; d--) {
      const q = (x / 10) | 0
      buffer[d] = ZERO + x - q * 10
      x = q
    }
    return at + digits
  }
  let digits = 10
  for (let p = 1e10; p <= v; p *= 10) digits++
  for (let d = at + digits - 1; d >= at; d--) {
    const q = Math.floor(v / 10)
    buffer[d] = ZERO + (v - q * 10)
    v = q
  }
  return at + digits
}
