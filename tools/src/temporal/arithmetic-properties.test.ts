import { GraphCatalog } from '@service/core'
import { CypherEngine } from '@service/core/cypher'
import fc from 'fast-check'
import { Temporal } from 'temporal-polyfill'
import { describe, expect, it } from 'vitest'

/**
 * Property tests of Cypher temporal arithmetic against the Temporal library's own answers: random
 * wall-clock times, instants in real IANA zones (DST changes included) and durations of mixed signs.
 */

const engine = new CypherEngine(new GraphCatalog())
async function value(query: string, params: Record<string, unknown>): Promise<unknown> {
  const result = await engine.run({ query, mode: 'read', params })
  if (result.status !== 'Success') throw new Error(`${query}: ${result.validation_errors[0]?.message}`)
  return result.data?.rows[0]?.[0]
}

const ZONES = [
  'Europe/Stockholm',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Apia',
  'UTC',
]

const plainDateTime = fc
  .record({
    year: fc.integer({ min: 1700, max: 2300 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    nanosecond: fc.integer({ min: 0, max: 999_999_999 }),
  })
  .map(({ nanosecond, ...fields }) =>
    Temporal.PlainDateTime.from(
      {
        ...fields,
        millisecond: Math.floor(nanosecond / 1e6),
        microsecond: Math.floor(nanosecond / 1e3) % 1000,
        nanosecond: nanosecond % 1000,
      },
      { overflow: 'constrain' },
    ),
  )

const instantMs = fc.integer({ min: -5_000_000_000_000, max: 8_000_000_000_000 })
const zone = fc.constantFrom(...ZONES)
const durationParts = fc.record({
  months: fc.integer({ min: -600, max: 600 }),
  days: fc.integer({ min: -1000, max: 1000 }),
  seconds: fc.integer({ min: -10_000_000, max: 10_000_000 }),
  nanoseconds: fc.integer({ min: 0, max: 999_999_999 }),
})

/** Seconds and nanoseconds as one Temporal duration (its fields must share a sign). */
function exact(seconds: number, nanoseconds: number): Temporal.Duration {
  const total = BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds)
  const abs = total < 0n ? -total : total
  const s = Number(abs / 1_000_000_000n)
  const n = Number(abs % 1_000_000_000n)
  return Temporal.Duration.from(
    total < 0n ? { seconds: -s, nanoseconds: -n } : { seconds: s, nanoseconds: n },
  )
}

const runs = { numRuns: 150 }

describe('temporal arithmetic against the Temporal library', () => {
  it('localdatetime + duration: months (clamped), then days, then exact time', async () => {
    await fc.assert(
      fc.asyncProperty(plainDateTime, durationParts, async (start, d) => {
        const got = await value('RETURN toString(localdatetime($s) + duration($d))', {
          s: start.toString(),
          d,
        })
        const want = start
          .add({ months: d.months })
          .add({ days: d.days })
          .add(exact(d.seconds, d.nanoseconds))
        expect(Temporal.PlainDateTime.from(got as string).equals(want)).toBe(true)
      }),
      runs,
    )
  })

  it('an instant seen in an IANA zone has the library wall time and offset', async () => {
    await fc.assert(
      fc.asyncProperty(instantMs, zone, async (ms, z) => {
        const got = (await value('RETURN datetime({epochMillis: $ms, timezone: $z})', { ms, z })) as {
          $datetime: string
        }
        const want = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(z)
        const parsed = Temporal.ZonedDateTime.from(got.$datetime.replace(/(:\d\d)(:\d\d)(\[)/, '$1$3'), {
          offset: 'ignore',
        })
        expect(parsed.toPlainDateTime().equals(want.toPlainDateTime())).toBe(true)
        expect(got.$datetime.endsWith(`[${z}]`)).toBe(true)
        expect(
          await value('RETURN datetime({epochMillis: $ms, timezone: $z}).offsetSeconds', { ms, z }),
        ).toBe(want.offsetNanoseconds / 1e9)
      }),
      runs,
    )
  })

  it('a zoned datetime + duration: calendar parts on the wall clock, time parts on the instant', async () => {
    await fc.assert(
      fc.asyncProperty(instantMs, zone, durationParts, async (ms, z, d) => {
        const start = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(z)
        const got = await value('RETURN datetime({epochMillis: $ms, timezone: $z}) + duration($d)', {
          ms,
          z,
          d,
        })
        const want = start
          .add({ months: d.months })
          .add({ days: d.days })
          .add(exact(d.seconds, d.nanoseconds))
        const epochMillis = await value('RETURN datetime($t).epochMillis', {
          t: (got as { $datetime: string }).$datetime,
        })
        expect(epochMillis).toBe(want.epochMilliseconds)
      }),
      runs,
    )
  })

  it('duration.inSeconds between zoned instants is the library difference; order follows the instants', async () => {
    await fc.assert(
      fc.asyncProperty(instantMs, zone, instantMs, zone, async (msA, zA, msB, zB) => {
        const params = { a: msA, za: zA, b: msB, zb: zB }
        const a = 'datetime({epochMillis: $a, timezone: $za})'
        const b = 'datetime({epochMillis: $b, timezone: $zb})'
        const seconds = await value(`RETURN duration.inSeconds(${a}, ${b}).seconds`, params)
        expect(seconds).toBe(Math.floor((msB - msA) / 1000))
        expect(await value(`RETURN ${a} < ${b}`, params)).toBe(msA < msB)
      }),
      runs,
    )
  })

  it('start + duration.between(start, end) = end for local date-times', async () => {
    await fc.assert(
      fc.asyncProperty(plainDateTime, plainDateTime, async (start, end) => {
        const params = { s: start.toString(), e: end.toString() }
        const back = await value(
          'RETURN toString(localdatetime($s) + duration.between(localdatetime($s), localdatetime($e)))',
          params,
        )
        expect(Temporal.PlainDateTime.from(back as string).equals(end)).toBe(true)
      }),
      runs,
    )
  })
})
