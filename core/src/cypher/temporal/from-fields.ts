import { Temporal } from 'temporal-polyfill'
import { runtimeError } from '../errors.js'
import {
  type DateTimeValue,
  DateValue,
  DurationValue,
  LocalDateTimeValue,
  LocalTimeValue,
  NANOS_PER_SECOND,
  TimeValue,
} from './values.js'
import { atInstant, parseZone } from './zones.js'

/**
 * Temporal values from the numeric fields a wire protocol carries (Bolt's PackStream structures): the
 * inverse of the getters on the value classes (epoch days, nanoseconds of day, epoch seconds, offset, zone).
 * Out-of-range fields are an INVALID_ARGUMENT_VALUE, never a crash.
 */

const NANOS_PER_DAY = 86_400 * NANOS_PER_SECOND
const EPOCH = Temporal.PlainDate.from('1970-01-01')
const NANOS_N = BigInt(NANOS_PER_SECOND)

function guard<T>(what: string, build: () => T): T {
  try {
    return build()
  } catch (error) {
    throw runtimeError('INVALID_ARGUMENT_VALUE', `${what} is out of range: ${(error as Error).message}`)
  }
}

function timeOfDay(nanos: bigint): Temporal.PlainTime {
  if (nanos < 0n || nanos >= BigInt(NANOS_PER_DAY)) throw new RangeError(`${nanos} ns is not a time of day`)
  const n = Number(nanos)
  return Temporal.PlainTime.from({
    hour: Math.floor(n / 3_600_000_000_000),
    minute: Math.floor(n / 60_000_000_000) % 60,
    second: Math.floor(n / NANOS_PER_SECOND) % 60,
    millisecond: Math.floor(n / 1_000_000) % 1000,
    microsecond: Math.floor(n / 1000) % 1000,
    nanosecond: n % 1000,
  })
}

export const TemporalFromFields = {
  date: (epochDay: bigint) => guard('date', () => new DateValue(EPOCH.add({ days: Number(epochDay) }))),
  localTime: (nanosOfDay: bigint) => guard('local time', () => new LocalTimeValue(timeOfDay(nanosOfDay))),
  time: (nanosOfDay: bigint, offsetSeconds: bigint) =>
    guard('time', () => new TimeValue(timeOfDay(nanosOfDay), Number(offsetSeconds))),
  localDateTime: (epochSeconds: bigint, nanos: bigint) =>
    guard(
      'local datetime',
      () =>
        new LocalDateTimeValue(
          Temporal.Instant.fromEpochNanoseconds(epochSeconds * NANOS_N + nanos)
            .toZonedDateTimeISO('UTC')
            .toPlainDateTime(),
        ),
    ),
  /** An instant (UTC epoch seconds) seen at a fixed offset. */
  dateTime: (epochSeconds: bigint, nanos: bigint, offsetSeconds: bigint): DateTimeValue =>
    guard('datetime', () =>
      atInstant(epochSeconds * NANOS_N + nanos, { offsetSeconds: Number(offsetSeconds), name: null }),
    ),
  /** An instant (UTC epoch seconds) seen in a named zone. */
  dateTimeInZone: (epochSeconds: bigint, nanos: bigint, zone: string): DateTimeValue =>
    guard('datetime', () => atInstant(epochSeconds * NANOS_N + nanos, parseZone(zone))),
  duration: (months: bigint, days: bigint, seconds: bigint, nanos: bigint) =>
    new DurationValue(months, days, seconds, nanos),
}
