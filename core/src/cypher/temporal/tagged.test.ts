import { describe, expect, it } from 'vitest'
import { bindParams } from '../params.js'
import { testEngine } from '../test-support.js'
import { DateTimeValue, DateValue, DurationValue } from './values.js'

const { one, engine } = testEngine()

describe('the tagged JSON form', () => {
  it('results carry each type under its tag, in Neo4j string form, nested in lists and maps too', async () => {
    expect(await one("RETURN datetime('2024-05-01T10:30:15.123456789+02:00[Europe/Paris]')")).toEqual({
      $datetime: '2024-05-01T10:30:15.123456789+02:00[Europe/Paris]',
    })
    expect(await one("RETURN {at: [date('2024-05-01'), duration('PT90M')]}")).toEqual({
      at: [{ $date: '2024-05-01' }, { $duration: 'PT1H30M' }],
    })
    expect(
      await one("RETURN [localtime('10:30'), time('10:30+02:00'), localdatetime('2024-05-01T10:30')]"),
    ).toEqual([{ $localtime: '10:30' }, { $time: '10:30+02:00' }, { $localdatetime: '2024-05-01T10:30' }])
  })

  it('parameters in that form are temporal values; a round trip gives the same value', async () => {
    const params = bindParams(
      {
        when: { $datetime: '2024-05-01T10:30:15.123456789+02:00[Europe/Paris]' },
        d: { $date: '2024-05-01' },
        p: { $duration: 'P1Y2M3DT4H' },
      },
      100,
    )
    expect(params.get('when')).toBeInstanceOf(DateTimeValue)
    expect(params.get('d')).toBeInstanceOf(DateValue)
    expect(params.get('p')).toBeInstanceOf(DurationValue)
    expect(await one('RETURN $d + $p', { d: { $date: '2024-05-01' }, p: { $duration: 'P1M' } })).toEqual({
      $date: '2024-06-01',
    })
    const back = await one('RETURN $v', { v: { $time: '10:30:00.5-03:30' } })
    expect(await one('RETURN $v = time($s)', { v: back, s: '10:30:00.5-03:30' })).toBe(true)
  })

  it('ordinary maps with a $-key stay maps: only one key, a known tag and a string is temporal', async () => {
    expect(await one('RETURN $m', { m: { $date: '2024-05-01', note: 'x' } })).toEqual({
      $date: '2024-05-01',
      note: 'x',
    })
    expect(await one('RETURN $m', { m: { $price: 'P1D' } })).toEqual({ $price: 'P1D' })
    expect(await one('RETURN $m', { m: { $date: 20240501 } })).toEqual({ $date: 20240501 })
  })

  it('a known tag with a malformed string is a parameter error', async () => {
    const result = await engine.run({ query: 'RETURN $d', mode: 'auto', params: { d: { $date: 'soon' } } })
    expect(result.status).not.toBe('Success')
    expect(result.validation_errors[0]?.code).toBe('INVALID_PARAMETER')
  })
})
