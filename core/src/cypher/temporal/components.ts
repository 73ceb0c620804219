import { Temporal } from 'temporal-polyfill'
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
 * Temporal values from the numbers drivers exchange (Bolt's PackStream structures): epoch days, nanoseconds
 * of day, epoch seconds plus nanoseconds, offset seconds or a zone id, duration months/days/seconds/nanos.
 * The getters on the value classes give the same numbers back.
 */

const NS = BigInt(NANOS_PER_SECOND)
const EPOCH_DATE = Temporal.PlainDate.from('1970-01-01')
const MIDNIGHT = new Temporal.PlainTime()

const timeOfDay = (nanosecondOfDay: bigint | number): Temporal.PlainTime =>
  MIDNIGHT.add({ nanoseconds: Number(nanosecondOfDay) })

export const dateFromEpochDay = (epochDay: bigint | number): DateValue =>
  new DateValue(EPOCH_DATE.add({ days: Number(epochDay) }))

export const localTimeFromNanos = (nanosecondOfDay: bigint | number): LocalTimeValue =>
  new LocalTimeValue(timeOfDay(nanosecondOfDay))

export const timeFromNanos = (nanosecondOfDay: bigint | number, offsetSeconds: number): TimeValue =>
  new TimeValue(timeOfDay(nanosecondOfDay), offsetSeconds)

export const localDateTimeFromEpoch = (
  epochSeconds: bigint,
  nanosecond: bigint | number,
): LocalDateTimeValue =>
  new LocalDateTimeValue(
    Temporal.Instant.fromEpochNanoseconds(epochSeconds * NS + BigInt(nanosecond))
      .toZonedDateTimeISO('UTC')
      .toPlainDateTime(),
  )

/** An instant in a zone: an IANA id ('Europe/Paris') or an offset in seconds. */
export const dateTimeFromEpoch = (
  epochSeconds: bigint,
  nanosecond: bigint | number,
  zone: string | number,
): DateTimeValue =>
  atInstant(
    epochSeconds * NS + BigInt(nanosecond),
    typeof zone === 'number' ? { offsetSeconds: zone, name: null } : parseZone(zone),
  )

export const durationFromComponents = (
  months: bigint,
  days: bigint,
  seconds: bigint,
  nanoseconds: bigint | number,
): DurationValue => new DurationValue(months, days, seconds, nanoseconds)
