import type { Temporal } from 'temporal-polyfill'
import { DateTimeValue, DateValue, LocalDateTimeValue, LocalTimeValue, TimeValue } from './values.js'
import { type Zone, zoneOf } from './zones.js'

/** The date, time and zone parts a value has (undefined for the parts its type lacks, and for non-temporals). */

export function datePart(v: unknown): Temporal.PlainDate | undefined {
  if (v instanceof DateValue) return v.date
  if (v instanceof LocalDateTimeValue || v instanceof DateTimeValue) return v.dateTime.toPlainDate()
  return undefined
}

export function timePart(v: unknown): Temporal.PlainTime | undefined {
  if (v instanceof LocalTimeValue || v instanceof TimeValue) return v.time
  if (v instanceof LocalDateTimeValue || v instanceof DateTimeValue) return v.dateTime.toPlainTime()
  return undefined
}

export function zonePart(v: unknown): Zone | undefined {
  if (v instanceof TimeValue) return { offsetSeconds: v.offsetSeconds, name: null }
  if (v instanceof DateTimeValue) return zoneOf(v)
  return undefined
}
