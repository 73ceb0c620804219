import { describe, expect, it } from 'vitest'
import { testEngine } from '../test-support.js'

const { one, rows, error } = testEngine()
const str = (expr: string) => one(`RETURN toString(${expr})`)

describe('accessors', () => {
  it('date and datetime fields, week-based year, epoch and zone', async () => {
    const [row] = await rows(
      "WITH datetime('1984-11-11T12:31:14.645876123[Europe/Stockholm]') AS d RETURN d.year, d.quarter, d.week, d.weekYear, d.ordinalDay, d.dayOfWeek, d.dayOfQuarter, d.millisecond, d.microsecond, d.nanosecond, d.timezone, d.offset, d.offsetMinutes, d.epochSeconds, d.epochMillis",
    )
    expect(row).toEqual([
      1984,
      4,
      45,
      1984,
      316,
      7,
      42,
      645,
      645876,
      645876123,
      'Europe/Stockholm',
      '+01:00',
      60,
      469020674,
      469020674645,
    ])
    expect(await rows("WITH date('1984-01-01') AS d RETURN d.weekYear, d.week")).toEqual([[1983, 52]])
  })

  it('duration components and their remainders', async () => {
    const [row] = await rows(
      'WITH duration({years: 1, months: 4, days: 10, hours: 1, minutes: 1, seconds: 1, nanoseconds: 111111111}) AS d RETURN d.years, d.months, d.weeks, d.days, d.minutes, d.milliseconds, d.monthsOfYear, d.daysOfWeek, d.minutesOfHour, d.nanosecondsOfSecond',
    )
    expect(row).toEqual([1, 16, 1, 10, 61, 3661111, 4, 3, 1, 111111111])
  })

  it('an unknown field is an error', async () => {
    expect(await error("RETURN date('2015-01-01').hour")).toBe('INVALID_ARGUMENT_TYPE')
  })
})

describe('arithmetic', () => {
  it('moves instants by durations: months clamp, dates take whole days of the seconds', async () => {
    expect(await str("date('2015-01-31') + duration('P1M')")).toBe('2015-02-28')
    expect(await str("date('1984-10-11') + duration('P1DT47H')")).toBe('1984-10-13')
    expect(await str("localtime('23:00') + duration('PT2H')")).toBe('01:00')
    expect(await str("localdatetime('2015-07-21T21:40') - duration('P1Y1M1DT1H')")).toBe('2014-06-20T20:40')
  })

  it('keeps wall-clock days and exact hours across a DST change in a named zone', async () => {
    const start = "datetime('2017-10-28T12:00[Europe/Stockholm]')"
    expect(await str(`${start} + duration('P1D')`)).toBe('2017-10-29T12:00+01:00[Europe/Stockholm]')
    expect(await str(`${start} + duration('PT24H')`)).toBe('2017-10-29T11:00+01:00[Europe/Stockholm]')
  })

  it('adds, subtracts, multiplies and divides durations', async () => {
    expect(await str("duration('P1M') + duration('P1D')")).toBe('P1M1D')
    expect(await str("duration('PT1S') - duration('PT1.5S')")).toBe('PT-0.5S')
    expect(await str("duration('P1DT1H') * 2")).toBe('P2DT2H')
    expect(await str("duration('P1D') / 2")).toBe('PT12H')
    expect(await str("2 * duration('PT1M')")).toBe('PT2M')
    expect(await str("-duration('P1DT1.5S')")).toBe('P-1DT-1.5S')
    expect(await error("RETURN duration('P1D') / 0")).toBe('DIVISION_BY_ZERO')
    expect(await error("RETURN date('2015-01-01') + date('2015-01-01')")).toBe('INVALID_ARGUMENT_TYPE')
  })

  it('duration.between and its unit variants', async () => {
    expect(await str("duration.between(date('1984-10-11'), date('2015-06-24'))")).toBe('P30Y8M13D')
    expect(await str("duration.between(localtime('14:30'), date('2015-06-24'))")).toBe('PT-14H-30M')
    expect(await str("duration.inMonths(date('1984-10-11'), date('2015-06-24'))")).toBe('P30Y8M')
    expect(await str("duration.inDays(date('2015-06-24'), date('1984-10-11'))")).toBe('P-11213D')
    expect(
      await str(
        "duration.inSeconds(datetime('2017-10-29T00:00[Europe/Stockholm]'), localdatetime('2017-10-29T04:00'))",
      ),
    ).toBe('PT5H')
  })
})

describe('comparison and order', () => {
  it('compares one type on the time line; different types and durations are not comparable', async () => {
    expect(await one("RETURN datetime('2015-07-21T21:40+01:00') < datetime('2015-07-21T21:30Z')")).toBe(true)
    expect(await one("RETURN time('10:00+01:00') = time('09:00Z')")).toBe(false)
    expect(await one("RETURN date('2015-07-21') < localdatetime('2015-07-22T00:00')")).toBeNull()
    expect(await one("RETURN duration('P1D') < duration('P2D')")).toBeNull()
    expect(await one("RETURN duration('P12M') = duration('P1Y')")).toBe(true)
    expect(await one("RETURN duration('P1D') = duration('PT24H')")).toBe(false)
  })

  it('ORDER BY puts the temporal types in a fixed order and each in time order', async () => {
    const sorted = await rows(
      "UNWIND [duration('P1D'), localtime('10:00'), date('2015-01-01'), 'text', date('2014-01-01'), datetime('2015-01-01T00:00Z'), localdatetime('2015-01-01T00:00'), time('10:00Z')] AS v RETURN toString(v) ORDER BY v",
    )
    expect(sorted.map((r) => r[0])).toEqual([
      '2015-01-01T00:00Z',
      '2015-01-01T00:00',
      '2014-01-01',
      '2015-01-01',
      '10:00Z',
      '10:00',
      'P1D',
      'text',
    ])
  })

  it('DISTINCT and grouping meet equal values', async () => {
    expect(
      await one(
        "UNWIND [date('2015-01-01'), date('20150101'), duration('P1Y'), duration('P12M')] AS v RETURN count(DISTINCT v)",
      ),
    ).toBe(2)
  })
})

describe('aggregation', () => {
  it('sums and averages durations component-wise; mixing them with numbers is an error', async () => {
    const list = "[duration('P1M'), duration('P1D'), duration('PT1H'), duration('PT2H')]"
    expect(await one(`UNWIND ${list} AS d RETURN toString(sum(d))`)).toBe('P1M1DT3H')
    expect(await one(`UNWIND ${list} AS d RETURN toString(avg(d))`)).toBe('P7DT21H22M16.5S')
    expect(await error("UNWIND [duration('P1D'), 1] AS d RETURN sum(d)")).toBe('INVALID_ARGUMENT_TYPE')
    expect(await error("UNWIND [date('2015-01-01')] AS d RETURN avg(d)")).toBe('INVALID_ARGUMENT_TYPE')
  })
})

describe('truncate', () => {
  it('cuts to a unit, then applies the map; a zone given in the map relabels', async () => {
    expect(await str("date.truncate('week', date('2017-10-11'), {dayOfWeek: 2})")).toBe('2017-10-10')
    expect(
      await str("datetime.truncate('millennium', date('2017-10-11'), {timezone: 'Europe/Stockholm'})"),
    ).toBe('2000-01-01T00:00+01:00[Europe/Stockholm]')
    expect(
      await str("localtime.truncate('millisecond', localtime('12:31:14.645876123'), {nanosecond: 2})"),
    ).toBe('12:31:14.645000002')
    expect(await str("localdatetime.truncate('quarter', localdatetime('1984-11-11T12:31'))")).toBe(
      '1984-10-01T00:00',
    )
    expect(await error("RETURN date.truncate('hour', date('2017-10-11'))")).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error("RETURN date.truncate('fortnight', date('2017-10-11'))")).toBe(
      'INVALID_ARGUMENT_VALUE',
    )
  })

  it("truncates the statement's now when given no instant", async () => {
    expect(await one("RETURN date.truncate('year') = date.truncate('year', date())")).toBe(true)
    expect(await one("RETURN datetime.truncate('hour') = datetime.truncate('hour', datetime())")).toBe(true)
    expect(await str("date.truncate('year')")).toMatch(/^\d{4}-01-01$/)
  })
})
