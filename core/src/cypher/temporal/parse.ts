import type { Temporal } from 'temporal-polyfill'
import { calendarDate, invalidValue, ordinalDate, plainTime, weekDate } from './calendar.js'
import { durationOf } from './duration-fields.js'
import type { DurationValue } from './values.js'
import { OFFSET_PATTERN, parseOffset } from './zones.js'

/**
 * ISO 8601 text as Neo4j reads it: calendar, week and ordinal dates, extended and basic (compact) forms,
 * reduced precision ('2015-07', '21'), offsets with optional colon, and a bracketed IANA zone.
 */

const YEAR = '(?<year>\\d{4}|[+-]\\d{1,9})'
const DATE =
  `${YEAR}(?:-(?<month>\\d{2})(?:-(?<day>\\d{2}))?|(?<cmonth>\\d{2})(?<cday>\\d{2})?` +
  '|-?W(?<week>\\d{2})(?:-?(?<dow>\\d))?|-?(?<ordinal>\\d{3}))?'
const TIME =
  '(?<hour>\\d{2})(?::(?<minute>\\d{2})(?::(?<second>\\d{2})(?:[.,](?<fraction>\\d{1,9}))?)?' +
  '|(?<cminute>\\d{2})(?:(?<csecond>\\d{2})(?:[.,](?<cfraction>\\d{1,9}))?)?)?'
const ZONE = `(?<offset>${OFFSET_PATTERN})?(?:\\[(?<zone>[^\\]]+)\\])?`

const DATE_RE = new RegExp(`^${DATE}$`, 'i')
const TIME_RE = new RegExp(`^${TIME}${ZONE}$`, 'i')
const DATE_TIME_RE = new RegExp(`^${DATE}(?:T${TIME})?${ZONE}$`, 'i')

type Groups = Record<string, string | undefined>

const cannotParse = (kind: string, text: string) => invalidValue(`cannot parse '${text}' as a ${kind}`)

function dateOf(g: Groups): Temporal.PlainDate {
  const year = Number(g.year)
  if (g.week !== undefined) return weekDate(year, Number(g.week), Number(g.dow ?? 1))
  if (g.ordinal !== undefined) return ordinalDate(year, Number(g.ordinal))
  return calendarDate(year, Number(g.month ?? g.cmonth ?? 1), Number(g.day ?? g.cday ?? 1))
}

function timeOf(g: Groups): Temporal.PlainTime {
  const fraction = g.fraction ?? g.cfraction ?? ''
  return plainTime(
    Number(g.hour ?? 0),
    Number(g.minute ?? g.cminute ?? 0),
    Number(g.second ?? g.csecond ?? 0),
    Number(fraction.padEnd(9, '0')),
  )
}

export function parseDate(text: string): Temporal.PlainDate {
  const m = DATE_RE.exec(text.trim())
  if (!m?.groups) throw cannotParse('date', text)
  return dateOf(m.groups)
}

export interface ParsedTime {
  time: Temporal.PlainTime
  offsetSeconds?: number
}

export function parseTime(text: string, allowOffset: boolean): ParsedTime {
  const m = TIME_RE.exec(text.trim())
  if (!m?.groups || m.groups.zone !== undefined || (!allowOffset && m.groups.offset !== undefined))
    throw cannotParse(allowOffset ? 'time' : 'local time', text)
  const time = timeOf(m.groups)
  const offset = m.groups.offset
  return offset === undefined ? { time } : { time, offsetSeconds: parseOffset(offset) as number }
}

export interface ParsedDateTime {
  dateTime: Temporal.PlainDateTime
  offsetSeconds?: number
  zone?: string
}

export function parseDateTime(text: string, allowZone: boolean): ParsedDateTime {
  const m = DATE_TIME_RE.exec(text.trim())
  const g = m?.groups
  if (!g || (!allowZone && (g.offset !== undefined || g.zone !== undefined)))
    throw cannotParse(allowZone ? 'datetime' : 'local datetime', text)
  const dateTime = dateOf(g).toPlainDateTime(timeOf(g))
  const out: ParsedDateTime = { dateTime }
  if (g.offset !== undefined) out.offsetSeconds = parseOffset(g.offset) as number
  if (g.zone !== undefined) out.zone = g.zone
  return out
}

const NUM = '([-+]?\\d+(?:[.,]\\d+)?)'
const DURATION_RE = new RegExp(
  `^([-+]?)P(?:${NUM}Y)?(?:${NUM}M)?(?:${NUM}W)?(?:${NUM}D)?(?:T(?:${NUM}H)?(?:${NUM}M)?(?:${NUM}S)?)?$`,
  'i',
)
const DURATION_DATE_TIME_RE = /^([-+]?)P(\d{4})-?(\d{2})-?(\d{2})T(\d{2}):?(\d{2}):?(\d{2}(?:[.,]\d{1,9})?)$/i

/** 'P1Y2M3W4DT5H6M7.5S' (any component may carry a sign or fraction) or 'P2012-02-02T14:37:21.545'. */
export function parseDuration(text: string): DurationValue {
  const trimmed = text.trim()
  const alt = DURATION_DATE_TIME_RE.exec(trimmed)
  const m = alt ?? DURATION_RE.exec(trimmed)
  if (!m || (!alt && m.slice(2).every((part) => part === undefined)) || /T$/i.test(trimmed))
    throw cannotParse('duration', text)
  const negate = m[1] === '-'
  const names = alt
    ? ['years', 'months', 'days', 'hours', 'minutes', 'seconds']
    : ['years', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds']
  const fields = new Map<string, string>()
  names.forEach((name, i) => {
    const part = m[i + 2]
    if (part !== undefined) fields.set(name, part.replace(',', '.'))
  })
  return durationOf(fields, negate)
}
