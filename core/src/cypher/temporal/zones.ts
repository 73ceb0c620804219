import { Temporal } from 'temporal-polyfill'
import { runtimeError } from '../errors.js'
import { DateTimeValue, NANOS_PER_SECOND } from './values.js'

/** A time zone as Cypher gives it: a fixed offset in seconds or an IANA name. */
export type Zone = { offsetSeconds: number; name: null } | { offsetSeconds: null; name: string }

export const UTC: Zone = { offsetSeconds: 0, name: null }

const OFFSET = /^(?:Z|([+-])(\d{2})(?::?(\d{2})(?::?(\d{2}))?)?)$/i

export const OFFSET_PATTERN = 'Z|[+-]\\d{2}(?::?\\d{2}(?::?\\d{2})?)?'

/** '+01:00', '-0130', '+02', 'Z' to seconds; undefined when the text is no offset. */
export function parseOffset(text: string): number | undefined {
  const m = OFFSET.exec(text)
  if (!m) return undefined
  if (m[1] === undefined) return 0
  const hours = Number(m[2])
  const minutes = Number(m[3] ?? 0)
  const seconds = Number(m[4] ?? 0)
  if (hours > 18 || minutes > 59 || seconds > 59) throw invalidZone(text)
  const total = hours * 3600 + minutes * 60 + seconds
  if (total > 18 * 3600) throw invalidZone(text)
  return m[1] === '-' ? -total : total
}

const invalidZone = (text: string) =>
  runtimeError(
    'INVALID_ARGUMENT_VALUE',
    `'${text}' is not a valid time zone (an offset like '+01:00' or an IANA name)`,
  )

const zoneNames = new Map<string, string>()

/** Parses a `timezone` value; IANA names are checked against the runtime's time-zone data. */
export function parseZone(text: string): Zone {
  const offset = parseOffset(text)
  if (offset !== undefined) return { offsetSeconds: offset, name: null }
  let name = zoneNames.get(text)
  if (name === undefined) {
    try {
      // Neo4j accepts a space for the underscore of IANA names ('America/Los Angeles').
      name = Temporal.Now.zonedDateTimeISO(text.replace(/ /g, '_')).timeZoneId
    } catch {
      throw invalidZone(text)
    }
    zoneNames.set(text, name)
  }
  return { offsetSeconds: null, name }
}

/** The zone a zoned value already has. */
export function zoneOf(value: { offsetSeconds: number; zone?: string | null }): Zone {
  return value.zone
    ? { offsetSeconds: null, name: value.zone }
    : { offsetSeconds: value.offsetSeconds, name: null }
}

/**
 * The date-time at a wall-clock time in a zone. In a gap the time moves forward by the gap, in an overlap
 * the earlier offset wins (java.time's rule), unless `preferOffset` is one of the valid offsets.
 */
export function atZone(local: Temporal.PlainDateTime, zone: Zone, preferOffset?: number): DateTimeValue {
  if (zone.name === null) return new DateTimeValue(local, zone.offsetSeconds, null)
  let zdt = local.toZonedDateTime(zone.name, { disambiguation: 'compatible' })
  if (preferOffset !== undefined && zdt.offsetNanoseconds !== preferOffset * NANOS_PER_SECOND) {
    const later = local.toZonedDateTime(zone.name, { disambiguation: 'later' })
    if (later.offsetNanoseconds === preferOffset * NANOS_PER_SECOND) zdt = later
  }
  return fromZoned(zdt)
}

export function fromZoned(zdt: Temporal.ZonedDateTime): DateTimeValue {
  return new DateTimeValue(zdt.toPlainDateTime(), zdt.offsetNanoseconds / NANOS_PER_SECOND, zdt.timeZoneId)
}

/** The date-time of an instant seen in a zone. */
export function atInstant(epochNanoseconds: bigint, zone: Zone): DateTimeValue {
  if (zone.name !== null) {
    return fromZoned(Temporal.Instant.fromEpochNanoseconds(epochNanoseconds).toZonedDateTimeISO(zone.name))
  }
  // Near the edge of the polyfill's range the wall clock is built now, as before, so an instant out of range
  // fails here with the same error rather than when a field is first read.
  const local = epochNanoseconds + BigInt(zone.offsetSeconds) * BigInt(NANOS_PER_SECOND)
  if (local > MAX_EPOCH_NS || local < -MAX_EPOCH_NS) {
    const wallClock = Temporal.Instant.fromEpochNanoseconds(local).toZonedDateTimeISO('UTC').toPlainDateTime()
    return new DateTimeValue(wallClock, zone.offsetSeconds, null)
  }
  return DateTimeValue.atEpoch(epochNanoseconds, zone.offsetSeconds)
}

/** ±10^8 days, the Temporal range: instants inside it need no check. */
const MAX_EPOCH_NS = 8_640_000_000_000_000_000_000n - 86_400_000_000_000n

/** The offset a zone has at an instant (a named zone's offset varies). */
export function offsetAt(zone: Zone, epochNanoseconds: bigint): number {
  if (zone.name === null) return zone.offsetSeconds
  return (
    Temporal.Instant.fromEpochNanoseconds(epochNanoseconds).toZonedDateTimeISO(zone.name).offsetNanoseconds /
    NANOS_PER_SECOND
  )
}
