import { describe, expect, it } from 'vitest'
import { ownValue, recordOf, setOwn } from './own-key.js'

describe('own-key helpers', () => {
  it('set, build and read "__proto__" and "constructor" as ordinary own keys', () => {
    const record: Record<string, number> = {}
    setOwn(record, '__proto__', 1)
    setOwn(record, 'constructor', 2)
    setOwn(record, 'k', 3)
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype)
    expect(Object.keys(record)).toEqual(['__proto__', 'constructor', 'k'])
    expect(JSON.parse(JSON.stringify(record))).toEqual(record)
    expect(ownValue(record, '__proto__')).toBe(1)
    expect(ownValue({}, 'constructor')).toBeUndefined()
    expect(Object.keys(recordOf([['__proto__', 1]]))).toEqual(['__proto__'])
  })
})
