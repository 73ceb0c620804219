import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'
import type { ItemResult } from './apply.js'
import { packResponse, unpackResponse } from './packed-response.js'
import type { StoredResponse } from './state.js'

const envelope = (response: unknown): StoredResponse => ({
  contract_version: { major: 1, minor: 0 },
  correlation_id: 'corr',
  outcome: { status: 'success', response },
})
const item = (i: number, extra: Partial<ItemResult> = {}): ItemResult => ({
  operation_id: `bulk-item-${i}`,
  id: `malware--${i}`,
  status: 'applied',
  before_revision: null,
  after_revision: 1,
  diagnostic: null,
  ...extra,
})

describe('packed bulk answers', () => {
  it('round-trips every field: statuses, revisions, own operation ids, diagnostics, null ids', () => {
    const results = [
      item(0),
      item(1, { status: 'conflict', before_revision: 3, after_revision: null, diagnostic: 'stale revision' }),
      item(2, { status: 'rejected', id: null, after_revision: null, diagnostic: 'no id' }),
      item(3, { status: 'retryable', after_revision: null }),
      item(4, { status: 'aborted', after_revision: null }),
      item(5, { before_revision: 1, after_revision: 2 }),
    ]
    const answer = envelope({ response: 'bulk', data: { results } })
    const packed = packResponse(answer)
    expect(JSON.stringify(packed)).not.toContain('"operation_id"')
    expect(unpackResponse(packed)).toEqual(answer)
    const own = envelope({
      response: 'bulk',
      data: { results: [item(0, { operation_id: 'first' }), item(1)] },
    })
    expect(unpackResponse(packResponse(own))).toEqual(own)
  })

  it('leaves other answers as they are, and a 5,000-item answer stored in a fifth of the bytes', () => {
    const write = envelope({ response: 'write', data: { id: 'malware--1', revision: 1 } })
    expect(packResponse(write)).toBe(write)
    expect(unpackResponse(write)).toBe(write)
    const failure: StoredResponse = { ...write, outcome: { status: 'failure', error: { code: 'CONFLICT' } } }
    expect(packResponse(failure)).toBe(failure)
    const big = envelope({
      response: 'bulk',
      data: { results: Array.from({ length: 5000 }, (_, i) => item(i)) },
    })
    const packed = packResponse(big)
    expect(JSON.stringify(packed).length * 5).toBeLessThan(JSON.stringify(big).length)
    expect(unpackResponse(packed)).toEqual(big)
  })

  it('a retried bulk write gets its original answer verbatim, also after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ref-packed-'))
    try {
      const body = {
        contract_version: { major: 1, minor: 0 },
        context: {
          request_id: 'r',
          correlation_id: 'c',
          idempotency_key: 'packed-bulk',
          access: { subject_id: 'u', organization_ids: [], marking_ids: [], roles: [], attributes: {} },
          consistency: 'eventual',
        },
        operation: {
          operation: 'bulk',
          request: {
            atomic: false,
            operations: [
              { operation: 'create', record: { id: 'malware--p1', type: 'malware', name: 'p1' } },
              { operation: 'update', operation_id: 'upd', id: 'malware--absent', patch: { name: 'x' } },
              { operation: 'create', record: { id: 'malware--p2', type: 'malware', name: 'p2' } },
            ],
          },
        },
      }
      let engine = await openEngine({ storage: { mode: 'persistent', dir } })
      const first = await engine.ref.write(body)
      expect(await engine.ref.write(body)).toEqual(first)
      await engine.close()
      engine = await openEngine({ storage: { mode: 'persistent', dir } })
      expect(await engine.ref.write(body)).toEqual(first)
      await engine.checkpoint()
      await engine.close()
      engine = await openEngine({ storage: { mode: 'persistent', dir } })
      expect(await engine.ref.write(body)).toEqual(first)
      await engine.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
