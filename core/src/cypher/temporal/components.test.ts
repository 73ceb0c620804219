import { describe, expect, it } from 'vitest'
import {
  dateFromEpochDay,
  dateTimeFromEpoch,
  durationFromComponents,
  localDateTimeFromEpoch,
  localTimeFromNanos,
  timeFromNanos,
} from './components.js'
import { formatTemporal } from './format.js'
import { fromString } from './from-string.js'
import { parseDuration } from './parse.js'
import type { DateTimeValue, DateValue, LocalDateTimeValue, LocalTimeValue, TimeValue } from './values.js'

describe('component numbers (for drivers)', () => {
  it('round-trip every type through the numbers its getters give', () => {
    const d = fromString('date', '1969-07-20') as DateValue
    expect(d.epochDay).toBe(-165)
    expect(formatTemporal(dateFromEpochDay(d.epochDay))).toBe('1969-07-20')
    const lt = fromString('localtime', '21:40:32.000000001') as LocalTimeValue
    expect(formatTemporal(localTimeFromNanos(lt.nanosecondOfDay))).toBe('21:40:32.000000001')
    const t = fromString('time', '21:40-02:30') as TimeValue
    expect(formatTemporal(timeFromNanos(t.nanosecondOfDay, t.offsetSeconds))).toBe('21:40-02:30')
    const ldt = fromString('localdatetime', '1900-01-01T00:00:00.5') as LocalDateTimeValue
    expect(formatTemporal(localDateTimeFromEpoch(ldt.epochSeconds, ldt.nanosecond))).toBe(
      '1900-01-01T00:00:00.500',
    )
    const dt = fromString('datetime', '2024-05-01T10:30:15.123456789+02:00[Europe/Paris]') as DateTimeValue
    expect(dt.epochSeconds).toBe(1714552215n)
    expect(formatTemporal(dateTimeFromEpoch(dt.epochSeconds, dt.nanosecond, dt.zone as string))).toBe(
      '2024-05-01T10:30:15.123456789+02:00[Europe/Paris]',
    )
    expect(formatTemporal(dateTimeFromEpoch(dt.epochSeconds, dt.nanosecond, dt.offsetSeconds))).toBe(
      '2024-05-01T10:30:15.123456789+02:00',
    )
    const p = parseDuration('P1Y2M3DT-4.5S')
    expect([p.months, p.days, p.seconds, p.nanoseconds]).toEqual([14n, 3n, -5n, 500_000_000])
    expect(formatTemporal(durationFromComponents(p.months, p.days, p.seconds, p.nanoseconds))).toBe(
      'P1Y2M3DT-4.5S',
    )
  })
})
