import type { Temporal } from 'temporal-polyfill'
import { typeError } from '../errors.js'
import { dayOfQuarter, quarterOf } from './calendar.js'
import {
  DateTimeValue,
  DateValue,
  type DurationValue,
  formatOffset,
  LocalDateTimeValue,
  LocalTimeValue,
  type TemporalValue,
  TimeValue,
} from './values.js'

/** `value.field` on temporal values (names as Neo4j 5 spells them, matched case-insensitively). */

type Field = bigint | string
const big = (n: number): bigint => BigInt(n)

function dateField(d: Temporal.PlainDate, name: string): Field | undefined {
  switch (name) {
    case 'year':
      return big(d.year)
    case 'quarter':
      return big(quarterOf(d))
    case 'month':
      return big(d.month)
    case 'week':
      return big(d.weekOfYear as number)
    case 'weekyear':
      return big(d.yearOfWeek as number)
    case 'day':
      return big(d.day)
    case 'ordinalday':
      return big(d.dayOfYear)
    case 'weekday':
    case 'dayofweek':
      return big(d.dayOfWeek)
    case 'dayofquarter':
      return big(dayOfQuarter(d))
  }
  return undefined
}

function timeField(t: Temporal.PlainTime | Temporal.PlainDateTime, name: string): Field | undefined {
  switch (name) {
    case 'hour':
      return big(t.hour)
    case 'minute':
      return big(t.minute)
    case 'second':
      return big(t.second)
    case 'millisecond':
      return big(t.millisecond)
    case 'microsecond':
      return big(t.millisecond * 1000 + t.microsecond)
    case 'nanosecond':
      return big((t.millisecond * 1000 + t.microsecond) * 1000 + t.nanosecond)
  }
  return undefined
}

function offsetField(offsetSeconds: number, timezone: string, name: string): Field | undefined {
  switch (name) {
    case 'timezone':
      return timezone
    case 'offset':
      return formatOffset(offsetSeconds, true)
    case 'offsetminutes':
      return big(Math.trunc(offsetSeconds / 60))
    case 'offsetseconds':
      return big(offsetSeconds)
  }
  return undefined
}

function durationField(d: DurationValue, name: string): Field | undefined {
  const nanos = BigInt(d.nanoseconds)
  switch (name) {
    case 'years':
      return d.months / 12n
    case 'quarters':
      return d.months / 3n
    case 'months':
      return d.months
    case 'weeks':
      return d.days / 7n
    case 'days':
      return d.days
    case 'hours':
      return d.seconds / 3600n
    case 'minutes':
      return d.seconds / 60n
    case 'seconds':
      return d.seconds
    case 'milliseconds':
      return d.seconds * 1000n + nanos / 1_000_000n
    case 'microseconds':
      return d.seconds * 1_000_000n + nanos / 1000n
    case 'nanoseconds':
      return d.seconds * 1_000_000_000n + nanos
    case 'quartersofyear':
      return (d.months / 3n) % 4n
    case 'monthsofquarter':
      return d.months % 3n
    case 'monthsofyear':
      return d.months % 12n
    case 'daysofweek':
      return d.days % 7n
    case 'minutesofhour':
      return (d.seconds / 60n) % 60n
    case 'secondsofminute':
      return d.seconds % 60n
    case 'millisecondsofsecond':
      return nanos / 1_000_000n
    case 'microsecondsofsecond':
      return nanos / 1000n
    case 'nanosecondsofsecond':
      return nanos
  }
  return undefined
}

function lookup(value: TemporalValue, name: string): Field | undefined {
  if (value instanceof DateValue) return dateField(value.date, name)
  if (value instanceof LocalTimeValue) return timeField(value.time, name)
  if (value instanceof TimeValue)
    return (
      timeField(value.time, name) ??
      offsetField(value.offsetSeconds, formatOffset(value.offsetSeconds, true), name)
    )
  if (value instanceof LocalDateTimeValue)
    return dateField(value.dateTime.toPlainDate(), name) ?? timeField(value.dateTime, name)
  if (value instanceof DateTimeValue) {
    if (name === 'epochseconds') return value.epochSeconds
    if (name === 'epochmillis')
      return value.epochNanoseconds / 1_000_000n - (value.epochNanoseconds % 1_000_000n < 0n ? 1n : 0n)
    return (
      dateField(value.dateTime.toPlainDate(), name) ??
      timeField(value.dateTime, name) ??
      offsetField(value.offsetSeconds, value.timezone, name)
    )
  }
  return durationField(value, name)
}

export function temporalProperty(value: TemporalValue, key: string): Field {
  const field = lookup(value, key.toLowerCase())
  if (field === undefined)
    throw typeError(`${value.constructor.name.replace(/Value$/, '')} has no field '${key}'`)
  return field
}
