import { describe, expect, it } from 'vitest'
import { isEngineError } from '../errors.js'
import { FILTERS, nextToken, parseObjectQuery } from './query.js'
import { WorkspaceSelection } from './selection.js'

const limits = { defaultSize: 10, maxSize: 100 }
const code = (fn: () => unknown) => {
  try {
    fn()
    return 'ok'
  } catch (error) {
    return isEngineError(error) ? error.code : 'other'
  }
}

describe('parseObjectQuery', () => {
  it('applies the default page, caps at the maximum, refuses bad limits at their edges', () => {
    expect(parseObjectQuery({}, limits).limit).toBe(10)
    expect(parseObjectQuery({ limit: '1' }, limits).limit).toBe(1)
    expect(parseObjectQuery({ limit: '100' }, limits).limit).toBe(100)
    expect(parseObjectQuery({ limit: '101' }, limits).limit).toBe(100)
    for (const limit of ['0', '-1', '1e3', '', '9999999999'])
      expect(
        code(() => parseObjectQuery({ limit }, limits)),
        limit,
      ).toBe('TAXII_INVALID_FILTER')
  })

  it('takes the later of added_after and next as the cursor', () => {
    const after = parseObjectQuery({ added_after: '1970-01-01T00:00:01Z' }, limits).after
    expect(after).toBe(1_000_000)
    expect(parseObjectQuery({ added_after: '1970-01-01T00:00:01Z', next: nextToken(5) }, limits).after).toBe(
      1_000_000,
    )
    expect(parseObjectQuery({ next: nextToken(2_000_000) }, limits).after).toBe(2_000_000)
    expect(code(() => parseObjectQuery({ next: 'ZZ!' }, limits))).toBe('TAXII_INVALID_FILTER')
  })

  it('reads match[] lists and refuses the filters an endpoint does not have', () => {
    const q = parseObjectQuery(
      { 'match[type]': 'malware, tool', 'match[version]': 'first,2024-01-01T00:00:00Z' },
      limits,
    )
    expect([...(q.types ?? [])]).toEqual(['malware', 'tool'])
    expect(q.versions).toMatchObject({ first: true, last: false, all: false })
    expect([...q.versions.exact]).toEqual(['2024-01-01T00:00:00.000000000Z'])
    expect(parseObjectQuery({}, limits).versions.last).toBe(true)
    expect(code(() => parseObjectQuery({ 'match[type]': ['a', 'b'] }, limits))).toBe('TAXII_INVALID_FILTER')
    expect(code(() => parseObjectQuery({ 'match[id]': 'x' }, limits, FILTERS.versions))).toBe(
      'TAXII_INVALID_FILTER',
    )
    expect(code(() => parseObjectQuery({ 'match[foo]': 'x' }, limits))).toBe('TAXII_INVALID_FILTER')
    expect(code(() => parseObjectQuery({ unrelated: 'x' }, limits))).toBe('ok')
  })
})

describe('WorkspaceSelection', () => {
  it('reads `*`, comma lists and nothing', () => {
    expect(WorkspaceSelection.parse('*').has('any')).toBe(true)
    const some = WorkspaceSelection.parse(' a, b ,,')
    expect([some.has('a'), some.has('b'), some.has('c')]).toEqual([true, true, false])
    expect(some.toString()).toBe('a,b')
    expect(WorkspaceSelection.parse('').has('a')).toBe(false)
    expect(() => WorkspaceSelection.parse('*,a')).toThrow(/combined/)
  })
})
