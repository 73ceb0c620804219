import { describe, expect, it } from 'vitest'
import { outboxIntent, touchedOf } from './outbox-intent.js'
import type { RefWriteRequest } from './request.js'
import type { OutboxEntry } from './state.js'

const write = (operation: string, body: unknown): RefWriteRequest =>
  ({
    contract_version: { major: 1, minor: 0 },
    context: {
      request_id: 'r',
      correlation_id: 'c',
      idempotency_key: 'k',
      access: { subject_id: 'user--1', organization_ids: [], marking_ids: [], roles: [], attributes: {} },
      consistency: 'eventual',
    },
    operation: { operation, request: body },
  }) as unknown as RefWriteRequest

const bulk = write('bulk', {
  operations: [
    { operation: 'create', record: { id: 'malware--a', type: 'malware' } },
    {
      operation: 'create',
      record: {
        id: 'relationship--r',
        type: 'relationship',
        relationship_type: 'uses',
        source_ref: 'malware--a',
        target_ref: 'tool--t',
      },
    },
  ],
})

describe('touched records of an outbox entry', () => {
  it('are not logged by the intent: they come from the request once its payload committed', () => {
    const entry: OutboxEntry = outboxIntent(bulk, 'sha256:k', 1)
    expect(JSON.parse(JSON.stringify(entry))).not.toHaveProperty('touched')
    entry.request = bulk
    expect(touchedOf(entry)).toEqual(['malware--a', 'relationship--r', 'tool--t'])
    expect(entry.touched).toBe(touchedOf(entry)) // derived once
  })

  it('keep what an older intent logged, and make an entry without a request a barrier', () => {
    const logged: OutboxEntry = { ...outboxIntent(bulk, 'sha256:k', 2), touched: ['x'], request: bulk }
    expect(touchedOf(logged)).toEqual(['x'])
    expect(touchedOf(outboxIntent(bulk, 'sha256:k', 3))).toEqual(['*'])
    const merge = { ...outboxIntent(bulk, 'sha256:k', 4), request: write('merge', { target_id: 'a' }) }
    expect(touchedOf(merge)).toEqual(['*'])
  })
})
