import { typeError } from '../errors.js'
import type { ExecContext } from '../executor/context.js'
import { type BetweenUnit, durationBetween } from './between.js'
import { invalidValue } from './calendar.js'
import { type Clock, nowInstant } from './clock.js'
import { fromEpoch, fromMap, fromTemporal, now, ofInstant } from './construct.js'
import { DURATION_UNITS, durationOf } from './duration-fields.js'
import { fromString, type TemporalKind } from './from-string.js'
import { parseDuration } from './parse.js'
import { truncate } from './truncate.js'
import { DurationValue, isTemporal, NANOS_PER_SECOND, type TemporalValue } from './values.js'
import { atInstant, parseZone, UTC } from './zones.js'

/** The temporal functions, registered into the function table by name (lower case, namespaced). */

type Arg = unknown
export interface TemporalFunctionDef {
  min: number
  max: number
  fn(args: Arg[], ctx: ExecContext): Arg
}

const describe = (v: Arg): string =>
  v === null
    ? 'null'
    : v instanceof Map
      ? 'a map'
      : Array.isArray(v)
        ? 'a list'
        : typeof v === 'object'
          ? (v?.constructor?.name ?? 'a value')
          : typeof v

function construct(kind: TemporalKind): TemporalFunctionDef {
  return {
    min: 0,
    max: 1,
    fn: (args, ctx) => {
      if (args.length === 0) return now(kind, ctx)
      const [arg] = args
      if (arg === null) return null
      if (typeof arg === 'string') return fromString(kind, arg)
      if (arg instanceof Map) {
        if (kind === 'datetime' && (hasKey(arg, 'epochseconds') || hasKey(arg, 'epochmillis')))
          return fromEpochMap(arg)
        return fromMap(kind, arg, ctx)
      }
      if (isTemporal(arg) && !(arg instanceof DurationValue)) return fromTemporal(kind, arg)
      throw typeError(`${kind}() does not accept ${describe(arg)}`)
    },
  }
}

const hasKey = (map: Map<string, Arg>, lower: string) =>
  [...map.keys()].some((k) => k.toLowerCase() === lower)

function fromEpochMap(map: Map<string, Arg>): Arg {
  const get = (name: string) => {
    for (const [k, v] of map) if (k.toLowerCase() === name) return v
    return undefined
  }
  const int = (name: string) => {
    const v = get(name)
    if (v === undefined || v === null) return 0n
    if (typeof v !== 'bigint') throw invalidValue(`${name} must be an integer`)
    return v
  }
  const zoneText = get('timezone')
  const zone = typeof zoneText === 'string' ? parseZone(zoneText) : UTC
  const nanos =
    int('epochseconds') * BigInt(NANOS_PER_SECOND) +
    int('epochmillis') * 1_000_000n +
    int('millisecond') * 1_000_000n +
    int('microsecond') * 1000n +
    int('nanosecond')
  return atInstant(nanos, zone)
}

function clock(kind: TemporalKind, which: Clock): TemporalFunctionDef {
  return {
    min: 0,
    max: 1,
    fn: (args, ctx) => {
      const zoneText = args[0]
      if (zoneText === null) return null
      if (zoneText !== undefined && typeof zoneText !== 'string')
        throw typeError(`${kind}.${which}() takes a time zone string`)
      return ofInstant(kind, nowInstant(ctx, which), zoneText === undefined ? UTC : parseZone(zoneText))
    },
  }
}

function truncateFn(kind: TemporalKind): TemporalFunctionDef {
  return {
    min: 1,
    max: 3,
    fn: (args, ctx) => {
      const [unit, given, map] = args
      // Without an instant, Neo4j truncates the statement's now.
      const value = args.length === 1 ? now(kind, ctx) : given
      if (value === null) return null
      if (typeof unit !== 'string') throw typeError(`${kind}.truncate() takes a unit string`)
      if (!isTemporal(value) || value instanceof DurationValue)
        throw typeError(`${kind}.truncate() takes a temporal instant`)
      if (map !== undefined && map !== null && !(map instanceof Map))
        throw typeError(`${kind}.truncate() takes a map of fields`)
      return truncate(kind, unit, value, map ?? undefined, ctx)
    },
  }
}

function between(unit: BetweenUnit): TemporalFunctionDef {
  return {
    min: 2,
    max: 2,
    fn: ([a, b]) => {
      if (a === null || b === null) return null
      if (!isTemporal(a) || !isTemporal(b)) throw typeError('duration.between() takes two temporal values')
      return durationBetween(a as TemporalValue, b as TemporalValue, unit)
    },
  }
}

function durationFn(): TemporalFunctionDef {
  return {
    min: 1,
    max: 1,
    fn: ([arg]) => {
      if (arg === null) return null
      if (typeof arg === 'string') return parseDuration(arg)
      if (arg instanceof DurationValue) return arg
      if (!(arg instanceof Map)) throw typeError(`duration() does not accept ${describe(arg)}`)
      const fields = new Map<string, bigint | number>()
      for (const [key, value] of arg) {
        const name = key.toLowerCase()
        if (!DURATION_UNITS.includes(name)) throw invalidValue(`'${key}' is not a duration component`)
        if (value === null) continue
        if (typeof value !== 'bigint' && typeof value !== 'number')
          throw invalidValue(`duration component ${key} must be a number`)
        fields.set(name, value)
      }
      return durationOf(fields)
    },
  }
}

const KINDS: TemporalKind[] = ['date', 'localtime', 'time', 'localdatetime', 'datetime']

/**
 * The library reports values beyond its range (years past ±271,821, epochs past ±10^8 days) with RangeError;
 * a query gets the usual invalid-argument error instead of an internal one.
 */
function guarded(def: TemporalFunctionDef): TemporalFunctionDef {
  return {
    ...def,
    fn: (args, ctx) => {
      try {
        return def.fn(args, ctx)
      } catch (error) {
        if (error instanceof RangeError) throw invalidValue(`temporal value out of range: ${error.message}`)
        throw error
      }
    },
  }
}

const TABLE: [string, TemporalFunctionDef][] = [
  ...KINDS.flatMap((kind): [string, TemporalFunctionDef][] => [
    [kind, construct(kind)],
    [`${kind}.transaction`, clock(kind, 'transaction')],
    [`${kind}.statement`, clock(kind, 'statement')],
    [`${kind}.realtime`, clock(kind, 'realtime')],
    [`${kind}.truncate`, truncateFn(kind)],
  ]),
  [
    'datetime.fromepoch',
    { min: 2, max: 2, fn: ([s, n]: Arg[]) => (s === null || n === null ? null : epoch(s, n, 1n)) },
  ],
  [
    'datetime.fromepochmillis',
    { min: 1, max: 1, fn: ([ms]: Arg[]) => (ms === null ? null : epoch(ms, 0n, 1_000_000n)) },
  ],
  ['duration', durationFn()],
  ['duration.between', between('all')],
  ['duration.inmonths', between('months')],
  ['duration.indays', between('days')],
  ['duration.inseconds', between('seconds')],
]

export const TEMPORAL_FUNCTIONS: Record<string, TemporalFunctionDef> = Object.fromEntries(
  TABLE.map(([name, def]) => [name, guarded(def)]),
)

function epoch(count: Arg, nanos: Arg, unitNanos: bigint): Arg {
  if (typeof count !== 'bigint' || typeof nanos !== 'bigint')
    throw typeError('datetime.fromepoch() takes integers')
  if (unitNanos === 1n) return fromEpoch(count, nanos)
  return fromEpoch(0n, count * unitNanos)
}
