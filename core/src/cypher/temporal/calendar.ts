import { Temporal } from 'temporal-polyfill'
import { runtimeError } from '../errors.js'

/** ISO week, quarter and ordinal dates built with the library's calendar (overflow is an error). */

export const invalidValue = (message: string) => runtimeError('INVALID_ARGUMENT_VALUE', message)

export function calendarDate(year: number, month: number, day: number): Temporal.PlainDate {
  try {
    return Temporal.PlainDate.from({ year, month, day }, { overflow: 'reject' })
  } catch {
    throw invalidValue(`invalid date: year ${year}, month ${month}, day ${day}`)
  }
}

/** Monday of ISO week 1: the week holding January 4th. */
function weekOneMonday(weekYear: number): Temporal.PlainDate {
  const jan4 = calendarDate(weekYear, 1, 4)
  return jan4.subtract({ days: jan4.dayOfWeek - 1 })
}

export function weekDate(weekYear: number, week: number, dayOfWeek: number): Temporal.PlainDate {
  if (dayOfWeek < 1 || dayOfWeek > 7) throw invalidValue(`invalid dayOfWeek ${dayOfWeek}`)
  if (week < 1 || week > 53) throw invalidValue(`invalid week ${week}`)
  const date = weekOneMonday(weekYear).add({ days: (week - 1) * 7 + dayOfWeek - 1 })
  if (date.yearOfWeek !== weekYear) throw invalidValue(`week-based year ${weekYear} has no week ${week}`)
  return date
}

export function ordinalDate(year: number, ordinalDay: number): Temporal.PlainDate {
  const first = calendarDate(year, 1, 1)
  if (ordinalDay < 1 || ordinalDay > first.daysInYear) throw invalidValue(`invalid ordinalDay ${ordinalDay}`)
  return first.add({ days: ordinalDay - 1 })
}

export const quarterOf = (date: Temporal.PlainDate): number => Math.ceil(date.month / 3)

export const quarterStart = (year: number, quarter: number): Temporal.PlainDate => {
  if (quarter < 1 || quarter > 4) throw invalidValue(`invalid quarter ${quarter}`)
  return calendarDate(year, (quarter - 1) * 3 + 1, 1)
}

export function quarterDate(year: number, quarter: number, dayOfQuarter: number): Temporal.PlainDate {
  const start = quarterStart(year, quarter)
  const date = start.add({ days: dayOfQuarter - 1 })
  if (dayOfQuarter < 1 || quarterOf(date) !== quarter || date.year !== year)
    throw invalidValue(`invalid dayOfQuarter ${dayOfQuarter} in quarter ${quarter}`)
  return date
}

export const dayOfQuarter = (date: Temporal.PlainDate): number =>
  quarterStart(date.year, quarterOf(date)).until(date, { largestUnit: 'days' }).days + 1

export function plainTime(
  hour: number,
  minute: number,
  second: number,
  nanoOfSecond: number,
): Temporal.PlainTime {
  if (nanoOfSecond < 0 || nanoOfSecond > 999_999_999)
    throw invalidValue(`invalid nanosecond of second ${nanoOfSecond}`)
  try {
    return Temporal.PlainTime.from(
      {
        hour,
        minute,
        second,
        millisecond: Math.floor(nanoOfSecond / 1_000_000),
        microsecond: Math.floor(nanoOfSecond / 1_000) % 1_000,
        nanosecond: nanoOfSecond % 1_000,
      },
      { overflow: 'reject' },
    )
  } catch {
    throw invalidValue(`invalid time: hour ${hour}, minute ${minute}, second ${second}`)
  }
}
