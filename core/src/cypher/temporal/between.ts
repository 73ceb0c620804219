import { Temporal } from 'temporal-polyfill'
import { runtimeError } from '../errors.js'
import { plusDateTime } from './arithmetic.js'
import { datePart, timePart, zonePart } from './parts.js'
import { DateTimeValue, DurationValue, NANOS_PER_SECOND, type TemporalValue } from './values.js'
import { atInstant, atZone, zoneOf } from './zones.js'

/**
 * `duration.between/inMonths/inDays/inSeconds` (java.time's `until`): whole months first, then whole days,
 * then the exact rest. A value without a date compares times only; a local value takes the other's zone;
 * two zoned values compare in the first one's zone.
 */

export type BetweenUnit = 'all' | 'months' | 'days' | 'seconds'

const MIDNIGHT = new Temporal.PlainTime()

const dateTimeOf = (v: TemporalValue): Temporal.PlainDateTime | undefined =>
  datePart(v)?.toPlainDateTime(timePart(v) ?? MIDNIGHT)

const timeOf = (v: TemporalValue): Temporal.PlainTime => timePart(v) ?? MIDNIGHT

/** Exact wall-clock difference (no instant involved, so the library's whole date range works). */
function nanosBetween(from: Temporal.PlainDateTime, to: Temporal.PlainDateTime): bigint {
  const d = from.until(to, { largestUnit: 'hours' })
  return (
    BigInt(d.hours) * 3_600_000_000_000n +
    BigInt(d.minutes) * 60_000_000_000n +
    BigInt(d.seconds) * 1_000_000_000n +
    BigInt(d.milliseconds) * 1_000_000n +
    BigInt(d.microseconds) * 1000n +
    BigInt(d.nanoseconds)
  )
}

/** java.time's rule: a partial last day does not count as a whole unit. */
function wholeUnits(
  from: Temporal.PlainDateTime,
  to: Temporal.PlainDateTime,
  unit: 'months' | 'days',
): number {
  let end = to.toPlainDate()
  const start = from.toPlainDate()
  const dateOrder = Temporal.PlainDate.compare(end, start)
  const timeOrder = Temporal.PlainTime.compare(to.toPlainTime(), from.toPlainTime())
  if (dateOrder > 0 && timeOrder < 0) end = end.subtract({ days: 1 })
  else if (dateOrder < 0 && timeOrder > 0) end = end.add({ days: 1 })
  const diff = start.until(end, { largestUnit: unit === 'months' ? 'months' : 'days' })
  return unit === 'months' ? diff.years * 12 + diff.months : diff.days
}

export function durationBetween(a: TemporalValue, b: TemporalValue, unit: BetweenUnit): DurationValue {
  if (a instanceof DurationValue || b instanceof DurationValue)
    throw runtimeError('INVALID_ARGUMENT_TYPE', 'duration.between() takes two instants, not durations')
  try {
    return between(a, b, unit)
  } catch (error) {
    if (error instanceof RangeError)
      throw runtimeError('INVALID_ARGUMENT_VALUE', `duration out of range: ${error.message}`)
    throw error
  }
}

function between(a: TemporalValue, b: TemporalValue, unit: BetweenUnit): DurationValue {
  const dateTimeA = dateTimeOf(a)
  const dateTimeB = dateTimeOf(b)
  if (dateTimeA === undefined && dateTimeB === undefined) return betweenTimes(a, b, unit)
  if ((dateTimeA === undefined || dateTimeB === undefined) && unit !== 'seconds' && unit !== 'all')
    return new DurationValue(0n, 0n, 0n, 0)
  // A value without a date is read on the other's date; a local one in the other's zone.
  let from = dateTimeA ?? (dateTimeB as Temporal.PlainDateTime).toPlainDate().toPlainDateTime(timeOf(a))
  let to = dateTimeB ?? (dateTimeA as Temporal.PlainDateTime).toPlainDate().toPlainDateTime(timeOf(b))
  const zoneA = zonePart(a) ?? zonePart(b)
  const zoneB = zonePart(b) ?? zonePart(a)
  let zonedFrom: DateTimeValue | undefined
  let zonedTo: DateTimeValue | undefined
  if (zoneA && zoneB) {
    zonedFrom = a instanceof DateTimeValue ? a : atZone(from, zoneA)
    zonedTo = b instanceof DateTimeValue ? b : atZone(to, zoneB)
    to = atInstant(zonedTo.epochNanoseconds, zoneOf(zonedFrom)).dateTime
  }
  if (unit === 'months') return new DurationValue(BigInt(wholeUnits(from, to, 'months')), 0n, 0n, 0)
  if (unit === 'days') return new DurationValue(0n, BigInt(wholeUnits(from, to, 'days')), 0n, 0)
  let months = 0
  let days = 0
  if (unit === 'all' && dateTimeA !== undefined && dateTimeB !== undefined) {
    months = wholeUnits(from, to, 'months')
    from = from.add({ months })
    days = wholeUnits(from, to, 'days')
    from = from.add({ days })
    if (zonedFrom) zonedFrom = plusDateTime(zonedFrom, months, days, 0n)
  }
  const nanos =
    zonedFrom && zonedTo ? zonedTo.epochNanoseconds - zonedFrom.epochNanoseconds : nanosBetween(from, to)
  return new DurationValue(BigInt(months), BigInt(days), 0n, nanos)
}

/** Two times of day: offsets count only when both have one. */
function betweenTimes(a: TemporalValue, b: TemporalValue, unit: BetweenUnit): DurationValue {
  if (unit === 'months' || unit === 'days') return new DurationValue(0n, 0n, 0n, 0)
  const offA = zonePart(a)?.offsetSeconds
  const offB = zonePart(b)?.offsetSeconds
  const bothZoned = offA != null && offB != null
  const nanoOf = (t: Temporal.PlainTime, offset: number | null | undefined) =>
    BigInt(t.hour * 3600 + t.minute * 60 + t.second - (bothZoned ? (offset as number) : 0)) *
      BigInt(NANOS_PER_SECOND) +
    BigInt(t.millisecond * 1_000_000 + t.microsecond * 1000 + t.nanosecond)
  return new DurationValue(0n, 0n, 0n, nanoOf(timeOf(b), offB) - nanoOf(timeOf(a), offA))
}
