import type { Temporal } from 'temporal-polyfill'
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

/** Neo4j's (java.time's) string forms: what `toString()` returns and what results carry. */

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

export function formatDate(d: Temporal.PlainDate): string {
  const year = d.year
  const abs = Math.abs(year)
  let y: string
  if (abs < 1000) y = `${year < 0 ? '-' : ''}${pad(abs, 4)}`
  else y = `${year > 9999 ? '+' : ''}${year}`
  return `${y}-${pad(d.month)}-${pad(d.day)}`
}

/** HH:mm, then :ss when seconds or fraction are set, the fraction in groups of 3 digits. */
export function formatTime(t: Temporal.PlainTime | Temporal.PlainDateTime): string {
  let out = `${pad(t.hour)}:${pad(t.minute)}`
  const nano = t.millisecond * 1_000_000 + t.microsecond * 1_000 + t.nanosecond
  if (t.second === 0 && nano === 0) return out
  out += `:${pad(t.second)}`
  if (nano === 0) return out
  if (nano % 1_000_000 === 0) return `${out}.${pad(nano / 1_000_000, 3)}`
  if (nano % 1_000 === 0) return `${out}.${pad(nano / 1_000, 6)}`
  return `${out}.${pad(nano, 9)}`
}

export function formatLocalDateTime(dt: Temporal.PlainDateTime): string {
  return `${formatDate(dt.toPlainDate())}T${formatTime(dt)}`
}

export function formatDuration(d: DurationValue): string {
  if (d.months === 0n && d.days === 0n && d.seconds === 0n && d.nanoseconds === 0) return 'PT0S'
  let out = 'P'
  const years = d.months / 12n
  const months = d.months % 12n
  if (years !== 0n) out += `${years}Y`
  if (months !== 0n) out += `${months}M`
  if (d.days !== 0n) out += `${d.days}D`
  if (d.seconds === 0n && d.nanoseconds === 0) return out
  out += 'T'
  // Print as a signed total: -0.5 s is 'PT-0.5S', not seconds -1 plus 0.5.
  const total = d.totalNanoseconds
  const negative = total < 0n
  const abs = negative ? -total : total
  const sign = negative ? '-' : ''
  const secs = abs / 1_000_000_000n
  const nanos = Number(abs % 1_000_000_000n)
  const hours = secs / 3600n
  const minutes = (secs / 60n) % 60n
  const seconds = secs % 60n
  if (hours !== 0n) out += `${sign}${hours}H`
  if (minutes !== 0n) out += `${sign}${minutes}M`
  if (seconds !== 0n || nanos !== 0) {
    out += `${sign}${seconds}`
    if (nanos !== 0) out += `.${pad(nanos, 9).replace(/0+$/, '')}`
    out += 'S'
  }
  return out
}

export function formatTemporal(value: TemporalValue): string {
  if (value instanceof DateValue) return formatDate(value.date)
  if (value instanceof LocalTimeValue) return formatTime(value.time)
  if (value instanceof TimeValue) return formatTime(value.time) + formatOffset(value.offsetSeconds, true)
  if (value instanceof LocalDateTimeValue) return formatLocalDateTime(value.dateTime)
  if (value instanceof DateTimeValue) {
    const base = formatLocalDateTime(value.dateTime) + formatOffset(value.offsetSeconds, true)
    return value.zone === null ? base : `${base}[${value.zone}]`
  }
  return formatDuration(value)
}
