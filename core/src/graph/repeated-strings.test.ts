import { describe, expect, it } from 'vitest'
import { RepeatedStrings } from './repeated-strings.js'

// A fresh string per call, as JSON.parse gives: equal text, a distinct string object.
const fresh = (text: string) => JSON.parse(JSON.stringify(text)) as string

describe('repeated strings', () => {
  it('shares one string per repeated value of a key and leaves keys of unique values alone', () => {
    const strings = new RepeatedStrings()
    const status = strings.key('status')
    const statuses = Array.from({ length: 5000 }, (_, i) =>
      status.of(fresh(i % 3 === 0 ? 'candidate' : 'reviewed')),
    )
    expect(statuses.filter((s) => s === 'candidate').length).toBe(1667)
    expect(strings.size).toBe(2)
    expect(status.interning).toBe(true)
    // Unique ids: past the sample the key stops being interned, and values come back as given.
    const stixIds = strings.key('stix_id')
    const ids = Array.from({ length: 3000 }, (_, i) => stixIds.of(fresh(`indicator--${i}`)))
    expect(ids[2999]).toBe('indicator--2999')
    expect(stixIds.interning).toBe(false)
    expect(strings.size).toBe(2 + 1023)
    // The repeated key keeps interning after the unique one stopped.
    expect(status.of(fresh('candidate'))).toBe('candidate')
  })

  it('shares one frozen list per repeated list of strings, and stops for a key whose lists are unique', () => {
    const strings = new RepeatedStrings()
    const types = strings.key('indicator_types')
    const lists = Array.from({ length: 3000 }, (_, i) =>
      types.list([fresh(i % 2 ? 'benign' : 'compromised')]),
    )
    expect(lists[0]).toBe(lists[2])
    expect(lists[1]).toBe(lists[3])
    expect(lists[0]).toEqual(['compromised'])
    expect(Object.isFrozen(lists[0])).toBe(true)
    expect(() => (lists[0] as string[]).push('x')).toThrow(TypeError)
    // Lists holding anything but strings, and long lists, come back as given.
    const mixed = [1, 'a']
    expect(types.list(mixed)).toBe(mixed)
    const long = Array.from({ length: 17 }, () => 'x')
    expect(types.list(long)).toBe(long)
    const refs = strings.key('object_refs')
    for (let i = 0; i < 1100; i++) refs.list([`indicator--${i}`])
    expect(refs.sharingLists).toBe(false)
    const last = [fresh('indicator--1')]
    expect(refs.list(last)).toBe(last)
    expect(Object.isFrozen(last)).toBe(false)
  })
})
