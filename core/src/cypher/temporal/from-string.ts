import { parseDate, parseDateTime, parseTime } from './parse.js'
import { type DateTimeValue, DateValue, LocalDateTimeValue, LocalTimeValue, TimeValue } from './values.js'
import { atZone, parseZone } from './zones.js'

/**
 * A temporal value of one kind from its ISO 8601 text. Kept apart from the map constructors (which need the
 * query's clock) so that storage and parameter decoding depend on nothing but parsing.
 */

export type TemporalKind = 'date' | 'localtime' | 'time' | 'localdatetime' | 'datetime'
export type Constructed = DateValue | LocalTimeValue | TimeValue | LocalDateTimeValue | DateTimeValue

export function fromString(kind: TemporalKind, text: string): Constructed {
  switch (kind) {
    case 'date':
      return new DateValue(parseDate(text))
    case 'localtime':
      return new LocalTimeValue(parseTime(text, false).time)
    case 'time': {
      const parsed = parseTime(text, true)
      return new TimeValue(parsed.time, parsed.offsetSeconds ?? 0)
    }
    case 'localdatetime':
      return new LocalDateTimeValue(parseDateTime(text, false).dateTime)
    case 'datetime': {
      const parsed = parseDateTime(text, true)
      if (parsed.zone !== undefined)
        return atZone(parsed.dateTime, parseZone(parsed.zone), parsed.offsetSeconds)
      return atZone(parsed.dateTime, { offsetSeconds: parsed.offsetSeconds ?? 0, name: null })
    }
  }
}
