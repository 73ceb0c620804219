import { Temporal } from 'temporal-polyfill'

/**
 * Cypher temporal values (Neo4j 5 semantics), immutable. Calendar and time-zone rules come from the
 * Temporal polyfill; these classes only hold the fields Cypher exposes. Drivers (Bolt) read the getters
 * named after PackStream's fields: epoch days, nanoseconds of day, offset seconds, zone id, and a
 * duration's months/days/seconds/nanoseconds.
 */

export const NANOS_PER_SECOND = 1_000_000_000
const NANOS_PER_SECOND_N = 1_000_000_000n

/** Nanoseconds since midnight of a wall-clock time. */
export const nanoOfDay = (t: Temporal.PlainTime): number =>
  ((t.hour * 60 + t.minute) * 60 + t.second) * NANOS_PER_SECOND +
  t.millisecond * 1_000_000 +
  t.microsecond * 1_000 +
  t.nanosecond

const EPOCH = Temporal.PlainDate.from('1970-01-01')

export class DateValue {
  constructor(readonly date: Temporal.PlainDate) {}
  /** Days since 1970-01-01. */
  get epochDay(): number {
    return EPOCH.until(this.date, { largestUnit: 'days' }).days
  }
}

export class LocalTimeValue {
  constructor(readonly time: Temporal.PlainTime) {}
  get nanosecondOfDay(): number {
    return nanoOfDay(this.time)
  }
}

/** A wall-clock time with a fixed UTC offset (no date, so never a named zone). */
export class TimeValue {
  constructor(
    readonly time: Temporal.PlainTime,
    readonly offsetSeconds: number,
  ) {}
  get nanosecondOfDay(): number {
    return nanoOfDay(this.time)
  }
  /** The same instant's time of day at UTC, for comparing times with different offsets. */
  get utcNanosecondOfDay(): number {
    const day = 86_400 * NANOS_PER_SECOND
    return (((nanoOfDay(this.time) - this.offsetSeconds * NANOS_PER_SECOND) % day) + day) % day
  }
}

export class LocalDateTimeValue {
  constructor(readonly dateTime: Temporal.PlainDateTime) {}
  /** Seconds since the epoch of this wall-clock time read as UTC (PackStream's LocalDateTime). */
  get epochSeconds(): bigint {
    return floorDiv(this.dateTime.toZonedDateTime('UTC').epochNanoseconds, NANOS_PER_SECOND_N)
  }
  get nanosecond(): number {
    return nanoOfDay(this.dateTime.toPlainTime()) % NANOS_PER_SECOND
  }
}

/**
 * An instant with its offset and, when given by name, its IANA zone. The local wall-clock time is kept
 * because offsets may have second precision ('+02:05:59'), which Temporal's own zones do not accept.
 */
export class DateTimeValue {
  private wallClock: Temporal.PlainDateTime | undefined
  private epoch: bigint | undefined
  constructor(
    /** Wall-clock time at `offsetSeconds` (undefined: made from the instant when first read). */
    dateTime: Temporal.PlainDateTime | undefined,
    readonly offsetSeconds: number,
    /** IANA zone id, or null for a fixed offset. */
    readonly zone: string | null,
    epochNanoseconds?: bigint,
  ) {
    this.wallClock = dateTime
    this.epoch = epochNanoseconds
  }

  /**
   * An instant at a fixed offset, held as its epoch nanoseconds: the calendar fields are built only if they are
   * read. Comparing, sorting and storing a datetime made from epoch seconds then costs no calendar work (the
   * polyfill's field computation was ~25 µs a value).
   */
  static atEpoch(epochNanoseconds: bigint, offsetSeconds: number): DateTimeValue {
    return new DateTimeValue(undefined, offsetSeconds, null, epochNanoseconds)
  }

  /** Wall-clock time at `offsetSeconds`. */
  get dateTime(): Temporal.PlainDateTime {
    this.wallClock ??= Temporal.Instant.fromEpochNanoseconds(
      (this.epoch as bigint) + BigInt(this.offsetSeconds) * NANOS_PER_SECOND_N,
    )
      .toZonedDateTimeISO('UTC')
      .toPlainDateTime()
    return this.wallClock
  }

  /** Computed once: comparisons and sorting read it for every pair. */
  get epochNanoseconds(): bigint {
    this.epoch ??=
      this.dateTime.toZonedDateTime('UTC').epochNanoseconds - BigInt(this.offsetSeconds) * NANOS_PER_SECOND_N
    return this.epoch
  }
  get epochSeconds(): bigint {
    return floorDiv(this.epochNanoseconds, NANOS_PER_SECOND_N)
  }
  get nanosecond(): number {
    return nanoOfDay(this.dateTime.toPlainTime()) % NANOS_PER_SECOND
  }
  /** The zone id Neo4j reports: the IANA name, or the offset ('+01:00', 'Z'). */
  get timezone(): string {
    return this.zone ?? formatOffset(this.offsetSeconds, true)
  }
}

/**
 * A Neo4j duration: months, days and seconds are independent (a month is not a fixed number of days);
 * nanoseconds are normalised to 0..999,999,999 with the sign carried by seconds.
 */
export class DurationValue {
  readonly months: bigint
  readonly days: bigint
  readonly seconds: bigint
  readonly nanoseconds: number
  constructor(months: bigint, days: bigint, seconds: bigint, nanoseconds: bigint | number) {
    const nanos = BigInt(nanoseconds)
    const total = seconds * NANOS_PER_SECOND_N + nanos
    this.months = months
    this.days = days
    this.seconds = floorDiv(total, NANOS_PER_SECOND_N)
    this.nanoseconds = Number(total - this.seconds * NANOS_PER_SECOND_N)
  }
  /** Seconds and nanoseconds as one count. */
  get totalNanoseconds(): bigint {
    return this.seconds * NANOS_PER_SECOND_N + BigInt(this.nanoseconds)
  }
}

export type TemporalValue =
  | DateValue
  | LocalTimeValue
  | TimeValue
  | LocalDateTimeValue
  | DateTimeValue
  | DurationValue

export function isTemporal(value: unknown): value is TemporalValue {
  return (
    value instanceof DateValue ||
    value instanceof LocalTimeValue ||
    value instanceof TimeValue ||
    value instanceof LocalDateTimeValue ||
    value instanceof DateTimeValue ||
    value instanceof DurationValue
  )
}

/** Cypher type names as `valueType()` reports them. */
export function temporalTypeName(value: TemporalValue): string {
  if (value instanceof DateValue) return 'DATE'
  if (value instanceof LocalTimeValue) return 'LOCAL TIME'
  if (value instanceof TimeValue) return 'ZONED TIME'
  if (value instanceof LocalDateTimeValue) return 'LOCAL DATETIME'
  if (value instanceof DateTimeValue) return 'ZONED DATETIME'
  return 'DURATION'
}

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q
}

/** '+01:00', '-02:05:07'; zero as 'Z' when `zulu`, else '+00:00'. */
export function formatOffset(seconds: number, zulu: boolean): string {
  if (seconds === 0 && zulu) return 'Z'
  const sign = seconds < 0 ? '-' : '+'
  const abs = Math.abs(seconds)
  const pad = (n: number) => String(n).padStart(2, '0')
  const h = Math.floor(abs / 3600)
  const m = Math.floor(abs / 60) % 60
  const s = abs % 60
  return `${sign}${pad(h)}:${pad(m)}${s ? `:${pad(s)}` : ''}`
}
