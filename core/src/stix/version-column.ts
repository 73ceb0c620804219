import { grown } from '../graph/id-list.js'

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/
/** Digits of a row whose text is kept as is. */
const TEXT = 255

/**
 * Version texts (`modified`, else `created`) of a column of rows, as the instant in microseconds and the
 * number of fraction digits written: 9 bytes a row where the string was ~40 bytes of heap, and it is
 * rebuilt exactly (each encoding is checked by rebuilding it). Other texts (more than six fraction
 * digits, years past 9999, '' for unversioned objects) are kept as they are.
 */
export class VersionColumn {
  private micros = new Float64Array(0)
  private digits = new Uint8Array(0)
  private readonly texts = new Map<number, string>()
  /** The last text rebuilt: rows of one bundle often share their version, and a checkpoint reads them in a run. */
  private lastMicros = -1
  private lastDigits = -1
  private lastText = ''

  /** Sets row `r`'s text (rows are set in order, each once). */
  set(r: number, text: string): void {
    if (r >= this.micros.length) {
      this.micros = grown(this.micros, r + 1)
      this.digits = grown(this.digits, r + 1)
    }
    const encoded = encode(text)
    if (encoded === undefined) {
      this.digits[r] = TEXT
      this.texts.set(r, text)
      return
    }
    this.micros[r] = encoded.micros
    this.digits[r] = encoded.digits
  }

  text(r: number): string {
    const digits = this.digits[r] as number
    if (digits === TEXT) return this.texts.get(r) as string
    const micros = this.micros[r] as number
    if (micros !== this.lastMicros || digits !== this.lastDigits) {
      this.lastText = decode(micros, digits)
      this.lastMicros = micros
      this.lastDigits = digits
    }
    return this.lastText
  }
}

function encode(text: string): { micros: number; digits: number } | undefined {
  const m = TIMESTAMP.exec(text)
  if (m === null) return undefined
  const ms = Date.parse(`${m[1]}Z`)
  if (Number.isNaN(ms)) return undefined
  const fraction = m[2] ?? ''
  const micros = ms * 1000 + Number(fraction.padEnd(6, '0'))
  const digits = fraction.length
  // Only what rebuilds to the same text: a date the parser rounds or a year it writes otherwise stays text.
  return decode(micros, digits) === text ? { micros, digits } : undefined
}

function decode(micros: number, digits: number): string {
  const ms = Math.floor(micros / 1000)
  const seconds = Math.floor(ms / 1000)
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19)
  if (digits === 0) return `${iso}Z`
  const fraction = String(micros - seconds * 1_000_000).padStart(6, '0')
  return `${iso}.${fraction.slice(0, digits)}Z`
}
