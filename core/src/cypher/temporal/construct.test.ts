import { describe, expect, it } from 'vitest'
import { testEngine } from '../test-support.js'

const { one, error } = testEngine()
const str = (expr: string) => one(`RETURN toString(${expr})`)

describe('temporal constructors from strings', () => {
  it('reads calendar, week, ordinal and compact dates', async () => {
    for (const [text, expected] of [
      ['2015-07-21', '2015-07-21'],
      ['20150721', '2015-07-21'],
      ['2015-07', '2015-07-01'],
      ['2015-W30-2', '2015-07-21'],
      ['2015W302', '2015-07-21'],
      ['2015-202', '2015-07-21'],
      ['2015', '2015-01-01'],
      ['+12015-07-21', '+12015-07-21'],
    ])
      expect(await str(`date('${text}')`), text).toBe(expected)
  })

  it('reads a zone name written with a space where IANA has an underscore', async () => {
    expect(await str("datetime({year: 2020, month: 1, day: 1, timezone: 'America/Los Angeles'})")).toBe(
      '2020-01-01T00:00-08:00[America/Los_Angeles]',
    )
    expect(await error("RETURN datetime({year: 2020, timezone: 'Nowhere/At All'})")).toBe(
      'INVALID_ARGUMENT_VALUE',
    )
  })

  it('reads times with offsets, date-times with IANA zones (offsets of the era included)', async () => {
    expect(await str("time('214032.142+0100')")).toBe('21:40:32.142+01:00')
    expect(await str("time('2140-00:00')")).toBe('21:40Z')
    expect(await str("localtime('21')")).toBe('21:00')
    expect(await str("localdatetime('2015-W30T2140')")).toBe('2015-07-20T21:40')
    expect(await str("datetime('2015-07-21T21:40:32.142[Europe/London]')")).toBe(
      '2015-07-21T21:40:32.142+01:00[Europe/London]',
    )
    expect(await str("datetime('1818-07-21T21:40:32.142[Europe/Stockholm]')")).toBe(
      '1818-07-21T21:40:32.142+00:53:28[Europe/Stockholm]',
    )
  })

  it('reads durations, fractional components spread Neo4j-style', async () => {
    expect(await str("duration('P5M1.5D')")).toBe('P5M1DT12H')
    expect(await str("duration('P0.75M')")).toBe('P22DT19H51M49.5S')
    expect(await str("duration('P2012-02-02T14:37:21.545')")).toBe('P2012Y2M2DT14H37M21.545S')
    expect(await str("duration('-PT1H')")).toBe('PT-1H')
  })

  it('refuses malformed text and impossible values', async () => {
    expect(await error("RETURN date('2015-13-01')")).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error("RETURN date('July 4th')")).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error("RETURN datetime('2015-07-21T10:00[Mars/Olympus]')")).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error("RETURN duration('P')")).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error("RETURN localtime('12:00+01:00')")).toBe('INVALID_ARGUMENT_VALUE')
  })
})

describe('temporal constructors from maps', () => {
  it('builds week, quarter and ordinal dates', async () => {
    expect(await str('date({year: 1817, week: 1})')).toBe('1816-12-30')
    expect(await str('date({year: 1984, quarter: 3, dayOfQuarter: 45})')).toBe('1984-08-14')
    expect(await str('date({year: 1984, ordinalDay: 202})')).toBe('1984-07-20')
  })

  it('selects from other values and overrides fields; a zoned source keeps its instant in a new zone', async () => {
    expect(await str("date({date: date('1816-12-30'), week: 2, dayOfWeek: 3})")).toBe('1817-01-08')
    expect(await str("time({time: time('12:31:14+01:00'), timezone: '+05:00'})")).toBe('16:31:14+05:00')
    expect(await str("localdatetime({date: date('1984-10-11'), time: localtime('10:10'), second: 42})")).toBe(
      '1984-10-11T10:10:42',
    )
    expect(await str('localtime({hour: 12, millisecond: 123, microsecond: 456, nanosecond: 789})')).toBe(
      '12:00:00.123456789',
    )
    expect(await str("datetime({year: 1984, month: 10, day: 11, hour: 12, timezone: '+02:05:59'})")).toBe(
      '1984-10-11T12:00+02:05:59',
    )
  })

  it('builds durations and epoch date-times', async () => {
    expect(await str('duration({weeks: 2.5})')).toBe('P17DT12H')
    expect(await str('duration({days: 14, seconds: 70, nanoseconds: 1})')).toBe('P14DT1M10.000000001S')
    expect(await str('datetime.fromepoch(416779, 999999999)')).toBe('1970-01-05T19:46:19.999999999Z')
    expect(await str('datetime.fromepochmillis(237821673987)')).toBe('1977-07-15T13:34:33.987Z')
    expect(await str('datetime({epochSeconds: 1, nanosecond: 5})')).toBe('1970-01-01T00:00:01.000000005Z')
  })

  it('refuses unknown fields, fields the type lacks, and out-of-range values', async () => {
    expect(await error('RETURN date({year: 1984, hour: 1})')).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error('RETURN date({year: 1984, colour: 1})')).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error('RETURN localtime({hour: 25})')).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error('RETURN date({year: 1984, week: 54})')).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error('RETURN duration({fortnights: 1})')).toBe('INVALID_ARGUMENT_VALUE')
  })

  it('null in, null out', async () => {
    expect(await one('RETURN date(null)')).toBeNull()
    expect(await one('RETURN duration.between(null, date())')).toBeNull()
  })
})

describe('the clock', () => {
  it('date(), datetime() and the statement clock agree within a statement; zones apply', async () => {
    const [a, b] = (await testEngine().rows('RETURN datetime(), datetime.statement()'))[0] as unknown[]
    expect(a).toEqual(b)
    const today = (await one('RETURN toString(date())')) as string
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(await one("RETURN datetime({timezone: 'Asia/Tokyo'}).timezone")).toBe('Asia/Tokyo')
    expect(await one("RETURN time.realtime('+01:00').offset")).toBe('+01:00')
  })
})

describe('range', () => {
  it('values beyond the library range are argument errors, not internal ones', async () => {
    expect(await error('RETURN datetime.fromepoch(100000000000000000, 0)')).toBe('INVALID_ARGUMENT_VALUE')
    expect(await error("RETURN date('+275760-09-13') + duration('P1Y')")).toBe('INVALID_ARGUMENT_VALUE')
    expect(
      await error("RETURN duration.between(date('-271821-04-20'), date('+275760-09-13'))"),
    ).toBeUndefined()
    expect(await error("RETURN localdatetime('-271821-04-19T00:00') - duration('PT1S')")).toBe(
      'INVALID_ARGUMENT_VALUE',
    )
    expect(await error('RETURN date({year: 1000000})')).toBe('INVALID_ARGUMENT_VALUE')
  })
})
