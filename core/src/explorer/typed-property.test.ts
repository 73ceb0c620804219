import { describe, expect, it } from 'vitest'
import { fromString } from '../cypher/temporal/from-string.js'
import { parseDuration } from '../cypher/temporal/parse.js'
import { typedProperty } from './typed-property.js'

describe('typed properties', () => {
  it('spell out scalars and lists, temporal values in their tagged JSON form', () => {
    expect(typedProperty(1n)).toEqual({ type: 'integer', value: 1 })
    expect(typedProperty(1)).toEqual({ type: 'float', value: 1 })
    expect(typedProperty(['a'])).toEqual({ type: 'string_list', value: ['a'] })
    expect(typedProperty(fromString('date', '2024-05-01'))).toEqual({
      type: 'json',
      value: { $date: '2024-05-01' },
    })
    expect(typedProperty([fromString('localtime', '10:30'), parseDuration('PT1H')])).toEqual({
      type: 'json',
      value: [{ $localtime: '10:30' }, { $duration: 'PT1H' }],
    })
  })
})
