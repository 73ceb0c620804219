import { grown } from '../graph/id-list.js'

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

  /** Rows whose text is kept as is (not a timestamp this column encodes). */
  get keptAsText(): number {
    return this.texts.size
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

/**
 * The instant of `YYYY-MM-DDTHH:MM:SS[.f{1,6}]Z` read by position (a regex, `Date.parse` and a rebuild to
 * check cost ~4 µs a row, a third of loading a 2M-object checkpoint's versions), or undefined for any other
 * text. Every field is range-checked, so the text rebuilds exactly: 24:00, second 60 and 30 February stay text.
 */
function encode(text: string): { micros: number; digits: number } | undefined {
  const n = text.length
  if (n < 20 || n > 27 || text.charCodeAt(n - 1) !== 90 /* Z */) return undefined
  if (!separatorsAt(text)) return undefined
  const year = digitsAt(text, 0, 4)
  const month = digitsAt(text, 5, 2)
  const day = digitsAt(text, 8, 2)
  const hour = digitsAt(text, 11, 2)
  const minute = digitsAt(text, 14, 2)
  const second = digitsAt(text, 17, 2)
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined
  let digits = 0
  let fraction = 0
  if (n > 20) {
    if (text.charCodeAt(19) !== 46 /* . */ || n === 21) return undefined
    digits = n - 21
    fraction = digitsAt(text, 20, digits)
    if (fraction < 0) return undefined
    for (let d = digits; d < 6; d++) fraction *= 10
  }
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
  const micros = seconds * 1_000_000 + fraction
  // Past ±285 years from 1970 microseconds no longer fit a double exactly: such texts stay text.
  return Number.isSafeInteger(micros) ? { micros, digits } : undefined
}

const SEPARATORS: readonly [number, number][] = [
  [4, 45],
  [7, 45],
  [10, 84],
  [13, 58],
  [16, 58],
]

function separatorsAt(text: string): boolean {
  for (const [at, code] of SEPARATORS) if (text.charCodeAt(at) !== code) return false
  return true
}

/** The decimal value of `count` digits at `at`, or -1 when one is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    value = value * 10 + d
  }
  return value
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

function decode(micros: number, digits: number): string {
  const ms = Math.floor(micros / 1000)
  const seconds = Math.floor(ms / 1000)
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19)
  if (digits === 0) return `${iso}Z`
  const fraction = String(micros - seconds * 1_000_000).padStart(6, '0')
  return `${iso}.${fraction.slice(0, digits)}Z`
}
