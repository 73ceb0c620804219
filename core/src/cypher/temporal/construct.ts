import { Temporal } from 'temporal-polyfill'
import type { ExecContext } from '../executor/context.js'
import {
  calendarDate,
  dayOfQuarter,
  invalidValue,
  ordinalDate,
  plainTime,
  quarterDate,
  quarterOf,
  weekDate,
} from './calendar.js'
import { nowInstant } from './clock.js'
import type { Constructed, TemporalKind } from './from-string.js'
import { datePart, timePart, zonePart } from './parts.js'
import {
  DateTimeValue,
  DateValue,
  LocalDateTimeValue,
  LocalTimeValue,
  NANOS_PER_SECOND,
  nanoOfDay,
  TimeValue,
} from './values.js'
import { atInstant, atZone, offsetAt, parseZone, UTC, type Zone } from './zones.js'

/**
 * The constructors `date()`, `localtime()`, `time()`, `localdatetime()`, `datetime()`: from nothing (now),
 * a string, a map of fields (optionally selecting from other temporal values), or another temporal value.
 */

type Input = unknown

const hasDate = (k: TemporalKind) => k === 'date' || k === 'localdatetime' || k === 'datetime'
const hasTime = (k: TemporalKind) => k !== 'date'
const hasZone = (k: TemporalKind) => k === 'time' || k === 'datetime'

/** Builds a value of `kind` from its date, time and zone. */
function assemble(
  kind: TemporalKind,
  date: Temporal.PlainDate,
  time: Temporal.PlainTime,
  zone: Zone,
  preferOffset?: number,
): Constructed {
  switch (kind) {
    case 'date':
      return new DateValue(date)
    case 'localtime':
      return new LocalTimeValue(time)
    case 'localdatetime':
      return new LocalDateTimeValue(date.toPlainDateTime(time))
    case 'time':
      return new TimeValue(time, zone.name === null ? zone.offsetSeconds : offsetAt(zone, nowEpoch()))
    case 'datetime':
      return atZone(date.toPlainDateTime(time), zone, preferOffset)
  }
}

const nowEpoch = () => Temporal.Now.instant().epochNanoseconds

/** `kind()` and `kind({timezone})`: the statement's clock in a zone. */
export function now(kind: TemporalKind, ctx: ExecContext, zone: Zone = UTC): Constructed {
  const instant = nowInstant(ctx, 'statement')
  return ofInstant(kind, instant, zone)
}

export function ofInstant(kind: TemporalKind, epochNanoseconds: bigint, zone: Zone): Constructed {
  const dt = atInstant(epochNanoseconds, zone)
  if (kind === 'datetime') return dt
  if (kind === 'time') return new TimeValue(dt.dateTime.toPlainTime(), dt.offsetSeconds)
  return assemble(kind, dt.dateTime.toPlainDate(), dt.dateTime.toPlainTime(), UTC)
}

/** `date(datetimeValue)` and the like: the parts the target type has; a zone-less source gets UTC. */
export function fromTemporal(kind: TemporalKind, value: Input): Constructed {
  const date = datePart(value)
  const time = timePart(value)
  if ((hasDate(kind) && date === undefined) || (hasTime(kind) && time === undefined))
    throw invalidValue(`cannot make a ${kind} from a ${value?.constructor?.name ?? typeof value}`)
  if (kind === 'datetime' && value instanceof DateTimeValue) return value
  if (kind === 'time' && value instanceof TimeValue) return value
  const zone = zonePart(value) ?? UTC
  if (kind === 'time' && value instanceof DateTimeValue)
    return new TimeValue(value.dateTime.toPlainTime(), value.offsetSeconds)
  return assemble(kind, date ?? calendarDate(1970, 1, 1), time ?? plainTime(0, 0, 0, 0), zone)
}

const DATE_FIELDS = ['year', 'month', 'day', 'week', 'dayofweek', 'quarter', 'dayofquarter', 'ordinalday']
const TIME_FIELDS = ['hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond']

function intField(fields: Map<string, Input>, name: string): number | undefined {
  const v = fields.get(name)
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'bigint') throw invalidValue(`${name} must be an integer`)
  return Number(v)
}

function buildDate(
  fields: Map<string, Input>,
  base: Temporal.PlainDate | undefined,
): Temporal.PlainDate | undefined {
  const get = (name: string) => intField(fields, name)
  if (!DATE_FIELDS.some((f) => fields.has(f))) return base
  const year = get('year')
  if (fields.has('week') || fields.has('dayofweek')) {
    const weekYear = year ?? base?.yearOfWeek
    if (weekYear === undefined) throw invalidValue('a week date needs a year')
    return weekDate(weekYear, get('week') ?? base?.weekOfYear ?? 1, get('dayofweek') ?? base?.dayOfWeek ?? 1)
  }
  const y = year ?? base?.year
  if (y === undefined) throw invalidValue('a date needs a year')
  if (fields.has('ordinalday')) return ordinalDate(y, get('ordinalday') as number)
  if (fields.has('quarter') || fields.has('dayofquarter')) {
    return quarterDate(
      y,
      get('quarter') ?? (base ? quarterOf(base) : 1),
      get('dayofquarter') ?? (base ? dayOfQuarter(base) : 1),
    )
  }
  if (base === undefined && get('day') !== undefined && get('month') === undefined)
    throw invalidValue('a day needs a month')
  return calendarDate(y, get('month') ?? base?.month ?? 1, get('day') ?? base?.day ?? 1)
}

function buildTime(
  fields: Map<string, Input>,
  base: Temporal.PlainTime | undefined,
): Temporal.PlainTime | undefined {
  const get = (name: string) => intField(fields, name)
  if (!TIME_FIELDS.some((f) => fields.has(f))) return base
  const [ms, us, ns] = ['millisecond', 'microsecond', 'nanosecond'].map((f) => get(f))
  const baseNanos = base ? nanoOfDay(base) % NANOS_PER_SECOND : 0
  if (base === undefined && !fields.has('hour')) throw invalidValue('a time needs an hour')
  const nanoOfSecond = subSecondNanos(ms, us, ns, baseNanos)
  return plainTime(
    get('hour') ?? base?.hour ?? 0,
    get('minute') ?? base?.minute ?? 0,
    get('second') ?? base?.second ?? 0,
    nanoOfSecond,
  )
}

/**
 * Nanosecond of second from `millisecond`, `microsecond` and `nanosecond` fields: each names its own
 * digits (123, 456, 789 make .123456789) unless it is the finest given and exceeds its slot (nanosecond:
 * 645876123 alone is the whole fraction). Digits not given come from the base time.
 */
function subSecondNanos(
  ms: number | undefined,
  us: number | undefined,
  ns: number | undefined,
  base: number,
): number {
  if (ms === undefined && us === undefined && ns === undefined) return base
  const check = (name: string, v: number | undefined, max: number) => {
    if (v !== undefined && (v < 0 || v > max)) throw invalidValue(`invalid ${name} ${v}`)
  }
  check('millisecond', ms, 999)
  check('microsecond', us, ms === undefined ? 999_999 : 999)
  check('nanosecond', ns, ms === undefined && us === undefined ? 999_999_999 : 999)
  let nanos = ms !== undefined ? ms * 1_000_000 + (base % 1_000_000) : base
  if (us !== undefined)
    nanos =
      (ms !== undefined || us < 1000 ? Math.floor(nanos / 1_000_000) * 1_000_000 : 0) +
      us * 1000 +
      (nanos % 1000)
  if (ns !== undefined)
    nanos = (ms !== undefined || us !== undefined || ns < 1000 ? Math.floor(nanos / 1000) * 1000 : 0) + ns
  return nanos
}

/** Constructs from a map: `{year, month, day, …, timezone}`, with `date`, `time`, `datetime` as bases. */
export function fromMap(kind: TemporalKind, map: Map<string, Input>, ctx: ExecContext): Constructed {
  const fields = new Map<string, Input>()
  for (const [key, value] of map) fields.set(key.toLowerCase(), value)
  for (const key of fields.keys()) {
    const known =
      DATE_FIELDS.includes(key) ||
      TIME_FIELDS.includes(key) ||
      ['date', 'time', 'datetime', 'timezone'].includes(key)
    if (!known) throw invalidValue(`'${key}' is not a field of ${kind}`)
    if (!hasDate(kind) && (DATE_FIELDS.includes(key) || key === 'date'))
      throw invalidValue(`${kind} has no field '${key}'`)
    if (!hasTime(kind) && (TIME_FIELDS.includes(key) || key === 'time'))
      throw invalidValue(`${kind} has no field '${key}'`)
  }
  const zoneText = fields.get('timezone')
  if (zoneText !== undefined && zoneText !== null && typeof zoneText !== 'string')
    throw invalidValue('timezone must be a string')
  const zoneOverride = typeof zoneText === 'string' ? parseZone(zoneText) : undefined
  if ([...fields.keys()].every((k) => k === 'timezone')) return now(kind, ctx, zoneOverride)

  const baseDateSource = fields.get('datetime') ?? fields.get('date')
  const baseTimeSource = fields.get('datetime') ?? fields.get('time')
  let date = hasDate(kind) ? buildDate(fields, datePart(baseDateSource)) : undefined
  if (hasDate(kind) && date === undefined) throw invalidValue(`${kind} needs a date (year or date: …)`)
  let baseTime = timePart(baseTimeSource)
  const sourceZone = zonePart(baseTimeSource)
  let zone = zoneOverride ?? sourceZone ?? UTC
  if (zoneOverride && sourceZone && baseTime && hasZone(kind)) {
    // A zoned source moved to another zone keeps its instant ({time: t, timezone: '+05:00'}); its wall
    // time is read at the (possibly overridden) date, then the time fields apply to the moved time.
    const anchor = date ?? datePart(baseTimeSource) ?? calendarDate(1970, 1, 1)
    const prefer = baseTimeSource instanceof DateTimeValue ? baseTimeSource.offsetSeconds : undefined
    const moved = atInstant(
      atZone(anchor.toPlainDateTime(baseTime), sourceZone, prefer).epochNanoseconds,
      zoneOverride,
    )
    baseTime = moved.dateTime.toPlainTime()
    if (date) date = moved.dateTime.toPlainDate()
    if (kind === 'time') zone = { offsetSeconds: moved.offsetSeconds, name: null }
  }
  const time = hasTime(kind) ? buildTime(fields, baseTime) : undefined
  const preferOffset =
    baseTimeSource instanceof DateTimeValue && !zoneOverride ? baseTimeSource.offsetSeconds : undefined
  return assemble(kind, date ?? calendarDate(1970, 1, 1), time ?? plainTime(0, 0, 0, 0), zone, preferOffset)
}

/** `datetime.fromepoch(seconds, nanos)` and `datetime.fromepochmillis(ms)`, at UTC. */
export function fromEpoch(seconds: bigint, nanos: bigint): DateTimeValue {
  return atInstant(seconds * BigInt(NANOS_PER_SECOND) + nanos, UTC)
}
