import { formatTemporal } from './format.js'
import { fromString, type TemporalKind } from './from-string.js'
import { parseDuration } from './parse.js'
import {
  DateTimeValue,
  DateValue,
  type DurationValue,
  LocalDateTimeValue,
  LocalTimeValue,
  type TemporalValue,
  TimeValue,
} from './values.js'

/**
 * The one JSON form of a temporal value, in results and parameters alike (HTTP, MCP, embedded) and in
 * the storage encoding: an object with exactly one key, a known tag, holding Neo4j's string form —
 * `{"$datetime": "2024-05-01T10:30:15.123456789+02:00[Europe/Paris]"}`, `{"$duration": "P1Y2M3DT4H"}`.
 */
export const TEMPORAL_TAGS = [
  '$date',
  '$localtime',
  '$time',
  '$localdatetime',
  '$datetime',
  '$duration',
] as const
export type TemporalTag = (typeof TEMPORAL_TAGS)[number]

export function tagOf(value: TemporalValue): TemporalTag {
  if (value instanceof DateValue) return '$date'
  if (value instanceof LocalTimeValue) return '$localtime'
  if (value instanceof TimeValue) return '$time'
  if (value instanceof LocalDateTimeValue) return '$localdatetime'
  if (value instanceof DateTimeValue) return '$datetime'
  return '$duration'
}

export function encodeTemporalTag(value: TemporalValue): Record<string, string> {
  return { [tagOf(value)]: formatTemporal(value) }
}

/**
 * The temporal value an object stands for, or undefined when it is an ordinary map: only an object with
 * exactly one key that is a known tag and a string value is read as temporal. A malformed string under a
 * tag is an error (the caller meant a temporal value).
 */
export function decodeTemporalTag(object: Record<string, unknown>): TemporalValue | undefined {
  let key: string | undefined
  for (const k in object) {
    if (key !== undefined) return undefined
    key = k
  }
  if (key === undefined || !(TEMPORAL_TAGS as readonly string[]).includes(key)) return undefined
  const text = object[key]
  if (typeof text !== 'string') return undefined
  if (key === '$duration') return parseDuration(text) as DurationValue
  return fromString(key.slice(1) as TemporalKind, text)
}
