import { describe, expect, it } from 'vitest'
import { CypherError } from '../errors.js'
import { formatTemporal } from './format.js'
import { TemporalFromFields as F } from './from-fields.js'
import { fromString } from './from-string.js'
import { parseDuration } from './parse.js'
import type { DateTimeValue, DateValue, LocalDateTimeValue, LocalTimeValue, TimeValue } from './values.js'

describe('temporal values from wire fields (Bolt)', () => {
  it('round-trip every type through the numbers its getters give', () => {
    const d = fromString('date', '1969-07-20') as DateValue
    expect(d.epochDay).toBe(-165)
    expect(formatTemporal(F.date(BigInt(d.epochDay)))).toBe('1969-07-20')
    const lt = fromString('localtime', '21:40:32.000000001') as LocalTimeValue
    expect(formatTemporal(F.localTime(BigInt(lt.nanosecondOfDay)))).toBe('21:40:32.000000001')
    const t = fromString('time', '21:40-02:30') as TimeValue
    expect(formatTemporal(F.time(BigInt(t.nanosecondOfDay), BigInt(t.offsetSeconds)))).toBe('21:40-02:30')
    const ldt = fromString('localdatetime', '1900-01-01T00:00:00.5') as LocalDateTimeValue
    expect(formatTemporal(F.localDateTime(ldt.epochSeconds, BigInt(ldt.nanosecond)))).toBe(
      '1900-01-01T00:00:00.500',
    )
    const dt = fromString('datetime', '2024-05-01T10:30:15.123456789+02:00[Europe/Paris]') as DateTimeValue
    expect(dt.epochSeconds).toBe(1714552215n)
    expect(formatTemporal(F.dateTimeInZone(dt.epochSeconds, BigInt(dt.nanosecond), dt.zone as string))).toBe(
      '2024-05-01T10:30:15.123456789+02:00[Europe/Paris]',
    )
    expect(formatTemporal(F.dateTime(dt.epochSeconds, BigInt(dt.nanosecond), BigInt(dt.offsetSeconds)))).toBe(
      '2024-05-01T10:30:15.123456789+02:00',
    )
    const p = parseDuration('P1Y2M3DT-4.5S')
    expect([p.months, p.days, p.seconds, p.nanoseconds]).toEqual([14n, 3n, -5n, 500_000_000])
    expect(formatTemporal(F.duration(p.months, p.days, p.seconds, BigInt(p.nanoseconds)))).toBe(
      'P1Y2M3DT-4.5S',
    )
  })

  it('fields out of range are argument errors', () => {
    expect(() => F.localTime(86_400_000_000_000n)).toThrow(CypherError)
    expect(() => F.date(10n ** 12n)).toThrow(CypherError)
    expect(() => F.dateTimeInZone(0n, 0n, 'Mars/Olympus')).toThrow(CypherError)
  })
})
