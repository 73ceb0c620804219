import { Temporal } from 'temporal-polyfill'
import type { ExecContext } from '../executor/context.js'
import { calendarDate, invalidValue, quarterOf, quarterStart, weekDate } from './calendar.js'
import { fromMap } from './construct.js'
import type { Constructed, TemporalKind } from './from-string.js'
import { datePart, timePart, zonePart } from './parts.js'
import { DateValue, formatOffset, LocalTimeValue, type TemporalValue } from './values.js'

/**
 * `date.truncate(unit, value, map)` and its siblings: the value cut down to `unit` (fields below it reset),
 * then the map's fields and timezone applied as in the map constructors. The zone is relabelled, not
 * converted: truncating 12:00-01:00 to the day in Europe/Stockholm gives midnight in Stockholm.
 */

const DATE_UNITS = ['millennium', 'century', 'decade', 'year', 'weekyear', 'quarter', 'month', 'week', 'day']
const TIME_UNITS = ['hour', 'minute', 'second', 'millisecond', 'microsecond']

const MIDNIGHT = new Temporal.PlainTime()

function truncateDate(date: Temporal.PlainDate, unit: string): Temporal.PlainDate {
  const floorTo = (n: number) => Math.floor(date.year / n) * n
  switch (unit) {
    case 'millennium':
      return calendarDate(floorTo(1000), 1, 1)
    case 'century':
      return calendarDate(floorTo(100), 1, 1)
    case 'decade':
      return calendarDate(floorTo(10), 1, 1)
    case 'year':
      return calendarDate(date.year, 1, 1)
    case 'weekyear':
      return weekDate(date.yearOfWeek as number, 1, 1)
    case 'quarter':
      return quarterStart(date.year, quarterOf(date))
    case 'month':
      return calendarDate(date.year, date.month, 1)
    case 'week':
      return date.subtract({ days: date.dayOfWeek - 1 })
    default:
      return date
  }
}

function truncateTime(time: Temporal.PlainTime, unit: string): Temporal.PlainTime {
  if (DATE_UNITS.includes(unit)) return MIDNIGHT
  const smallest = unit as 'hour' | 'minute' | 'second' | 'millisecond' | 'microsecond'
  return time.round({ smallestUnit: smallest, roundingMode: 'trunc' })
}

export function truncate(
  kind: TemporalKind,
  unitText: string,
  value: TemporalValue,
  map: Map<string, unknown> | undefined,
  ctx: ExecContext,
): Constructed {
  const unit = unitText.toLowerCase()
  if (!DATE_UNITS.includes(unit) && !TIME_UNITS.includes(unit))
    throw invalidValue(`unknown truncation unit '${unitText}'`)
  const withDate = kind === 'date' || kind === 'localdatetime' || kind === 'datetime'
  if (kind === 'date' && TIME_UNITS.includes(unit))
    throw invalidValue(`a date cannot be truncated to '${unitText}'`)
  if (!withDate && DATE_UNITS.includes(unit) && unit !== 'day')
    throw invalidValue(`a time cannot be truncated to '${unitText}'`)

  const date = datePart(value)
  const time = timePart(value)
  const zonePartOf = zonePart(value)
  const zone = zonePartOf && (zonePartOf.name ?? formatOffset(zonePartOf.offsetSeconds, true))
  if (date === undefined && time === undefined)
    throw invalidValue('truncate() takes a date, time or datetime')
  if (withDate && date === undefined)
    throw invalidValue(`a ${kind} cannot be truncated from a value without a date`)

  const fields = new Map<string, unknown>()
  if (withDate) fields.set('date', new DateValue(truncateDate(date as Temporal.PlainDate, unit)))
  if (kind !== 'date') fields.set('time', new LocalTimeValue(truncateTime(time ?? MIDNIGHT, unit)))
  if ((kind === 'time' || kind === 'datetime') && zone !== undefined) fields.set('timezone', zone)
  for (const [key, v] of map ?? []) fields.set(key, v)
  return fromMap(kind, fields, ctx)
}
