import { Temporal } from 'temporal-polyfill'
import { runtimeError, typeError } from '../errors.js'
import { approximate } from './duration-fields.js'
import {
  DateTimeValue,
  DateValue,
  DurationValue,
  LocalDateTimeValue,
  LocalTimeValue,
  type TemporalValue,
  TimeValue,
} from './values.js'
import { atInstant, atZone, zoneOf } from './zones.js'

/** `+`, `-`, `*`, `/` with temporal operands (Neo4j 5): instants move by durations, durations combine. */

const outOfRange = (error: unknown): Error =>
  error instanceof RangeError
    ? runtimeError('INVALID_ARGUMENT_VALUE', `temporal value out of range: ${error.message}`)
    : (error as Error)

/** Seconds and nanoseconds as one Temporal duration (its fields must share a sign). */
function exactDuration(totalNanos: bigint): Temporal.Duration {
  const negative = totalNanos < 0n
  const abs = negative ? -totalNanos : totalNanos
  const s = Number(abs / 1_000_000_000n)
  const n = Number(abs % 1_000_000_000n)
  return Temporal.Duration.from(negative ? { seconds: -s, nanoseconds: -n } : { seconds: s, nanoseconds: n })
}

/** Adds `sign` × duration the way java.time does: months, then days, then seconds, then nanoseconds. */
function plus(value: TemporalValue, d: DurationValue, sign: 1n | -1n): TemporalValue {
  const months = Number(d.months * sign)
  const days = Number(d.days * sign)
  const nanos = d.seconds * 1_000_000_000n * sign + BigInt(d.nanoseconds) * sign
  try {
    if (value instanceof DateValue) {
      // A date takes whole days out of the seconds (truncated toward zero, as Neo4j does).
      const extraDays = Number((d.seconds / 86_400n) * sign)
      return new DateValue(value.date.add({ months }).add({ days }).add({ days: extraDays }))
    }
    if (value instanceof LocalTimeValue) return new LocalTimeValue(value.time.add(exactDuration(nanos)))
    if (value instanceof TimeValue)
      return new TimeValue(value.time.add(exactDuration(nanos)), value.offsetSeconds)
    if (value instanceof LocalDateTimeValue)
      return new LocalDateTimeValue(value.dateTime.add({ months }).add({ days }).add(exactDuration(nanos)))
    if (value instanceof DateTimeValue) return plusDateTime(value, months, days, nanos)
  } catch (error) {
    throw outOfRange(error)
  }
  throw typeError('cannot add a duration to this value')
}

/** Calendar parts on the wall clock (keeping the offset where still valid), exact time on the instant. */
export function plusDateTime(
  value: DateTimeValue,
  months: number,
  days: number,
  nanos: bigint,
): DateTimeValue {
  const zone = zoneOf(value)
  let out = value
  if (months !== 0 || days !== 0)
    out = atZone(value.dateTime.add({ months }).add({ days }), zone, value.offsetSeconds)
  if (nanos === 0n) return out
  if (zone.name === null)
    return new DateTimeValue(out.dateTime.add(exactDuration(nanos)), out.offsetSeconds, null)
  return atInstant(out.epochNanoseconds + nanos, zone)
}

const durations = (a: DurationValue, b: DurationValue, sign: 1n | -1n) =>
  new DurationValue(
    a.months + sign * b.months,
    a.days + sign * b.days,
    a.seconds + sign * b.seconds,
    BigInt(a.nanoseconds) + sign * BigInt(b.nanoseconds),
  )

/** `a + b` when either is temporal; undefined when the pair is not a temporal operation. */
export function temporalAdd(a: unknown, b: unknown): TemporalValue | undefined {
  if (a instanceof DurationValue && b instanceof DurationValue) return durations(a, b, 1n)
  if (b instanceof DurationValue && isInstantLike(a)) return plus(a, b, 1n)
  if (a instanceof DurationValue && isInstantLike(b)) return plus(b, a, 1n)
  return undefined
}

export function temporalSubtract(a: unknown, b: unknown): TemporalValue | undefined {
  if (a instanceof DurationValue && b instanceof DurationValue) return durations(a, b, -1n)
  if (b instanceof DurationValue && isInstantLike(a)) return plus(a, b, -1n)
  return undefined
}

const isInstantLike = (v: unknown): v is TemporalValue =>
  v instanceof DateValue ||
  v instanceof LocalTimeValue ||
  v instanceof TimeValue ||
  v instanceof LocalDateTimeValue ||
  v instanceof DateTimeValue

/** `duration * number`, `number * duration`, `duration / number`. */
export function durationScale(op: '*' | '/', a: unknown, b: unknown): DurationValue | undefined {
  let d: DurationValue
  let factor: number | bigint
  if (a instanceof DurationValue && (typeof b === 'bigint' || typeof b === 'number')) {
    d = a
    factor = b
  } else if (op === '*' && b instanceof DurationValue && (typeof a === 'bigint' || typeof a === 'number')) {
    d = b
    factor = a
  } else return undefined
  const nanos = BigInt(d.nanoseconds)
  if (op === '*' && typeof factor === 'bigint')
    return new DurationValue(d.months * factor, d.days * factor, d.seconds * factor, nanos * factor)
  const f = Number(factor)
  if (op === '/') {
    if (f === 0) throw runtimeError('DIVISION_BY_ZERO', 'division of a duration by zero')
    return approximate(Number(d.months) / f, Number(d.days) / f, Number(d.seconds) / f, d.nanoseconds / f)
  }
  return approximate(Number(d.months) * f, Number(d.days) * f, Number(d.seconds) * f, d.nanoseconds * f)
}

/** `-duration`; undefined for anything else. */
export function durationNegate(a: unknown): DurationValue | undefined {
  if (!(a instanceof DurationValue)) return undefined
  return new DurationValue(-a.months, -a.days, -a.seconds, -BigInt(a.nanoseconds))
}
