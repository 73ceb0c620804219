import { describe, expect, it } from 'vitest'
import { holdsTemporalValue } from './record-format-gate.js'

describe('holdsTemporalValue', () => {
  it('finds every tagged value written outside a string', () => {
    for (const tag of ['date', 'localtime', 'time', 'localdatetime', 'datetime', 'duration']) {
      expect(holdsTemporalValue(`{"seq":1,"body":{"props":{"d":{"$${tag}":"x"}}}`), tag).toBe(true)
    }
    expect(holdsTemporalValue('{"body":{"p":[{"$point":{"srid":7203,"x":1,"y":2}}]}')).toBe(true)
  })

  it('ignores a tag inside a string value and keys that only start with $', () => {
    // The same text as a string property: its quotes are escaped, so no raw `{"$` occurs.
    expect(holdsTemporalValue(JSON.stringify({ body: { s: '{"$date":"2015-07-21"}' } }))).toBe(false)
    expect(holdsTemporalValue('{"body":{"props":{"$date":{"i":"1"}}}}')).toBe(false)
    expect(holdsTemporalValue('{"body":{"ops":[{"$dates":"x"},{"$point":1}]}}')).toBe(false)
    expect(holdsTemporalValue('{"seq":1,"tx":"tx--1","body":{"w":{"i":"1"}}}')).toBe(false)
  })
})
