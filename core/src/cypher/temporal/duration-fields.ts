import { invalidValue } from './calendar.js'
import { DurationValue } from './values.js'

/** Builds durations from named components (a map or the parts of an ISO string), exact when all are integers. */

/** Average Gregorian month (365.2425 / 12 days), the unit Neo4j spreads fractional months with. */
export const AVG_NANOS_PER_MONTH = 2_629_746_000_000_000
const NANOS_PER_DAY = 86_400_000_000_000

const UNITS: Record<string, { slot: 0 | 1 | 2 | 3; factor: number }> = {
  years: { slot: 0, factor: 12 },
  quarters: { slot: 0, factor: 3 },
  months: { slot: 0, factor: 1 },
  weeks: { slot: 1, factor: 7 },
  days: { slot: 1, factor: 1 },
  hours: { slot: 2, factor: 3600 },
  minutes: { slot: 2, factor: 60 },
  seconds: { slot: 2, factor: 1 },
  milliseconds: { slot: 3, factor: 1_000_000 },
  microseconds: { slot: 3, factor: 1_000 },
  nanoseconds: { slot: 3, factor: 1 },
}

export const DURATION_UNITS = Object.keys(UNITS)

const toLong = (x: number): bigint => {
  if (!Number.isFinite(x)) throw invalidValue('duration component is not a finite number')
  return BigInt(Math.trunc(x))
}

/**
 * Neo4j's DurationValue.approximate: fractions of months become days (average month), fractions of days
 * seconds, fractions of seconds nanoseconds, computed in doubles in the same order as Neo4j does.
 */
export function approximate(months: number, days: number, seconds: number, nanos: number): DurationValue {
  const m = Math.trunc(months)
  days += (AVG_NANOS_PER_MONTH * months - AVG_NANOS_PER_MONTH * m) / NANOS_PER_DAY
  const d = Math.trunc(days)
  seconds += (NANOS_PER_DAY * days - NANOS_PER_DAY * d) / 1e9
  const s = Math.trunc(seconds)
  nanos += 1e9 * seconds - 1e9 * s
  return new DurationValue(toLong(m), toLong(d), toLong(s), toLong(nanos))
}

/**
 * Components by unit name (lower case, plural). Values are integers (bigint), floats (number) or decimal
 * text from an ISO string, whose seconds fraction is kept exact.
 */
export function durationOf(fields: Map<string, bigint | number | string>, negate = false): DurationValue {
  const exact = [0n, 0n, 0n, 0n]
  const approx = [0, 0, 0, 0]
  let fractional = false
  for (const [name, raw] of fields) {
    const unit = UNITS[name]
    if (unit === undefined) throw invalidValue(`'${name}' is not a duration component`)
    let value = raw
    if (typeof value === 'string') {
      const [whole, fraction] = value.split('.')
      if (fraction !== undefined && name === 'seconds') {
        const sign = whole?.startsWith('-') ? -1n : 1n
        exact[2] = (exact[2] as bigint) + BigInt(whole as string)
        exact[3] = (exact[3] as bigint) + sign * BigInt(fraction.padEnd(9, '0').slice(0, 9))
        continue
      }
      value = fraction === undefined ? BigInt(whole as string) : Number(value)
    }
    if (typeof value === 'bigint') {
      exact[unit.slot] = (exact[unit.slot] as bigint) + value * BigInt(unit.factor)
    } else {
      fractional = true
      approx[unit.slot] = (approx[unit.slot] as number) + value * unit.factor
    }
  }
  let out = new DurationValue(exact[0] as bigint, exact[1] as bigint, exact[2] as bigint, exact[3] as bigint)
  if (fractional) {
    const extra = approximate(
      approx[0] as number,
      approx[1] as number,
      approx[2] as number,
      approx[3] as number,
    )
    out = new DurationValue(
      out.months + extra.months,
      out.days + extra.days,
      out.seconds + extra.seconds,
      BigInt(out.nanoseconds + extra.nanoseconds),
    )
  }
  return negate ? new DurationValue(-out.months, -out.days, -out.seconds, BigInt(-out.nanoseconds)) : out
}
