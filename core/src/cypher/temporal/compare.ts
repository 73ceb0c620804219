import { Temporal } from 'temporal-polyfill'
import { AVG_NANOS_PER_MONTH } from './duration-fields.js'
import { formatTemporal } from './format.js'
import {
  DateTimeValue,
  DateValue,
  DurationValue,
  LocalDateTimeValue,
  LocalTimeValue,
  type TemporalValue,
  TimeValue,
  temporalTypeName,
} from './values.js'

/**
 * Equality and order of temporal values (Neo4j 5): values of one type compare by their point on the time
 * line; different types are incomparable (null in `<`) but ORDER BY places them in a fixed order; durations
 * are equal when their components are, and never `<`-comparable.
 */

const sign = (n: number | bigint): number => (n < 0 ? -1 : n > 0 ? 1 : 0)

export function temporalEquals(a: TemporalValue, b: TemporalValue): boolean {
  if (a.constructor !== b.constructor) return false
  if (a instanceof DurationValue) {
    const d = b as DurationValue
    return (
      a.months === d.months && a.days === d.days && a.seconds === d.seconds && a.nanoseconds === d.nanoseconds
    )
  }
  if (a instanceof DateTimeValue) {
    const d = b as DateTimeValue
    return a.epochNanoseconds === d.epochNanoseconds && a.timezone === d.timezone
  }
  return sameTypeCompare(a, b) === 0
}

/** `<`-style comparison: a number, or null when the two are not comparable. */
export function temporalCompare(a: TemporalValue, b: TemporalValue): number | null {
  if (a.constructor !== b.constructor || a instanceof DurationValue) return null
  return sameTypeCompare(a, b)
}

function sameTypeCompare(a: TemporalValue, b: TemporalValue): number {
  if (a instanceof DateValue) return Temporal.PlainDate.compare(a.date, (b as DateValue).date)
  if (a instanceof LocalTimeValue) return sign(a.nanosecondOfDay - (b as LocalTimeValue).nanosecondOfDay)
  if (a instanceof TimeValue) {
    const t = b as TimeValue
    return sign(a.utcNanosecondOfDay - t.utcNanosecondOfDay) || sign(a.nanosecondOfDay - t.nanosecondOfDay)
  }
  if (a instanceof LocalDateTimeValue)
    return Temporal.PlainDateTime.compare(a.dateTime, (b as LocalDateTimeValue).dateTime)
  if (a instanceof DateTimeValue) return sign(a.epochNanoseconds - (b as DateTimeValue).epochNanoseconds)
  return durationOrder(a as DurationValue, b as DurationValue)
}

function durationOrder(a: DurationValue, b: DurationValue): number {
  const length = (d: DurationValue) =>
    d.months * BigInt(AVG_NANOS_PER_MONTH) + d.days * 86_400_000_000_000n + d.totalNanoseconds
  return (
    sign(length(a) - length(b)) ||
    sign(a.months - b.months) ||
    sign(a.days - b.days) ||
    sign(a.totalNanoseconds - b.totalNanoseconds)
  )
}

const ORDER = [DateTimeValue, LocalDateTimeValue, DateValue, TimeValue, LocalTimeValue, DurationValue]

/** Rank among temporal types for ORDER BY (between paths and strings, as in Neo4j). */
export const temporalRank = (value: TemporalValue): number => ORDER.indexOf(value.constructor as never)

/** Total order within one temporal type (ORDER BY, min/max); datetimes at one instant order by zone. */
export function temporalOrder(a: TemporalValue, b: TemporalValue): number {
  const c = sameTypeCompare(a, b)
  if (c !== 0 || !(a instanceof DateTimeValue)) return c
  const za = (a as DateTimeValue).timezone
  const zb = (b as DateTimeValue).timezone
  return za < zb ? -1 : za > zb ? 1 : 0
}

/** Key for DISTINCT and grouping: equal values give equal keys. */
export function temporalKey(value: TemporalValue): string {
  if (value instanceof DateTimeValue) return `@${value.epochNanoseconds}[${value.timezone}]`
  return `@${temporalTypeName(value)}:${formatTemporal(value)}`
}
