import { describe, expect, it } from 'vitest'
import { fromString } from '../cypher/temporal/from-string.js'
import { timeOf } from './recall.js'

describe('memory validity times', () => {
  it('read a Cypher datetime property as well as ISO text; other values are no time', () => {
    const at = fromString('datetime', '2024-05-01T10:30:15.123+02:00[Europe/Paris]')
    expect(timeOf(at)).toBe(Date.parse('2024-05-01T08:30:15.123Z'))
    expect(timeOf('2024-05-01T08:30:15.123Z')).toBe(Date.parse('2024-05-01T08:30:15.123Z'))
    expect(timeOf(fromString('date', '2024-05-01'))).toBeNull()
    expect(timeOf(undefined)).toBeNull()
  })
})
