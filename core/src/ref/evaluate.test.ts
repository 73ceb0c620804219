import { describe, expect, it } from 'vitest'
import { refWriteRequest } from '../testing/ref-requests.js'
import { limitProblem } from './evaluate.js'
import type { RefWriteRequest } from './request.js'

const create = (id: string, operationId?: string) => ({
  operation: 'create',
  record: { id, type: 'malware' },
  ...(operationId === undefined ? {} : { operation_id: operationId }),
})
const bulk = (operations: object[]) =>
  refWriteRequest('bulk', { operations, atomic: false }) as unknown as RefWriteRequest

describe('write limits', () => {
  it('accepts a bulk whose items carry no operation ids (the defaults are unique)', () => {
    expect(limitProblem(bulk([create('malware--1'), create('malware--2')]), 10)).toBeNull()
  })

  it('refuses a repeated explicit operation id, and one that collides with a default id', () => {
    expect(limitProblem(bulk([create('malware--1', 'a'), create('malware--2', 'a')]), 10)).toBe(
      'operation_id a is not unique',
    )
    // The second item's default id is bulk-item-1.
    expect(limitProblem(bulk([create('malware--1', 'bulk-item-1'), create('malware--2')]), 10)).toBe(
      'operation_id bulk-item-1 is not unique',
    )
  })

  it('refuses more operations than allowed, at the bound and one past it', () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => create(`malware--${i}`))
    expect(limitProblem(bulk(items(3)), 3)).toBeNull()
    expect(limitProblem(bulk(items(4)), 3)).toBe('the write carries 4 operations; at most 3 are allowed')
  })
})
