import { describe, expect, it } from 'vitest'
import { fromString } from '../cypher/temporal/from-string.js'
import { timeOf } from './recall.js'
import { asksAboutPast, pastYears } from './recall-time-cues.js'

describe('memory validity times', () => {
  it('read a Cypher datetime property as well as ISO text; other values are no time', () => {
    const at = fromString('datetime', '2024-05-01T10:30:15.123+02:00[Europe/Paris]')
    expect(timeOf(at)).toBe(Date.parse('2024-05-01T08:30:15.123Z'))
    expect(timeOf('2024-05-01T08:30:15.123Z')).toBe(Date.parse('2024-05-01T08:30:15.123Z'))
    expect(timeOf(fromString('date', '2024-05-01'))).toBeNull()
    expect(timeOf(undefined)).toBeNull()
  })
})

describe('the past a question names', () => {
  const now = Date.parse('2025-06-01T00:00:00Z')
  it('is a window over the past years it names, or none', () => {
    expect(pastYears('where did X work in 2022', now)).toEqual({
      start: Date.parse('2022-01-01T00:00:00Z'),
      end: Date.parse('2023-01-01T00:00:00Z'),
    })
    expect(pastYears('between 2019 and 2021', now)).toEqual({
      start: Date.parse('2019-01-01T00:00:00Z'),
      end: Date.parse('2022-01-01T00:00:00Z'),
    })
    expect(pastYears('plans for 2025 and 2026', now)).toBeNull()
    expect(pastYears('where did X live before the move', now)).toBeNull()
    expect(asksAboutPast('where did X live before the move', now)).toBe(true)
    expect(asksAboutPast('plans for 2026', now)).toBe(false)
  })
})
