import { describe, expect, it } from 'vitest'
import { parseRequest } from './request.js'

const limits = {
  max_items: 5,
  max_depth: 2,
  max_payload_bytes: 4096,
  max_cost: 100,
  timeout_ms: 100,
  supernode_threshold: 10,
}
const request = (operation: string, input: unknown) => ({ contract_version: 'v1', operation, input })
const { max_items: _dropped, ...withoutItems } = limits
const fails = (operation: string, input: unknown) => {
  try {
    parseRequest(request(operation, input))
  } catch (error) {
    const { code, message } = error as { code: string; message: string }
    return { code, message }
  }
  throw new Error('expected a refusal')
}
const note = { kind: 'note', schema_version: '1', content: { format: 'text', value: 'x' }, provenance: [] }

describe('memory input schemas', () => {
  it('name the field at fault, with the contract codes', () => {
    expect(fails('remember', { ...note, workspace_id: 'w' })).toEqual({
      code: 'INVALID_REQUEST',
      message: 'input.workspace_id is not a field of this contract',
    })
    expect(fails('remember', { ...note, kind: ' ' }).message).toBe('input.kind must be a non-empty string')
    expect(fails('remember', { ...note, content: { format: 'text', value: 3 } }).message).toBe(
      'input.content.value must be a string',
    )
    expect(fails('remember', { ...note, content: { format: 'html', value: 'x' } }).message).toBe(
      'input.content.format must be one of text, properties, text_and_properties',
    )
    // Nothing matches any branch of the union (no discriminator at all): still named from the union's place.
    expect(fails('remember', { ...note, content: { text: 'x' } }).message).toBe(
      'input.content.format must be one of text, properties, text_and_properties',
    )
    expect(
      fails('remember', { ...note, provenance: [{ source_id: 's', observed_at: 'yesterday' }] }).message,
    ).toBe('input.provenance[0].observed_at must be an RFC 3339 timestamp')
    expect(fails('remember', { ...note, confidence: 2 }).message).toBe(
      'input.confidence must be a number from 0 to 1',
    )
    expect(fails('recall', { objective: 'x', limits: { ...limits, max_depth: 17 } })).toEqual({
      code: 'INVALID_BUDGET',
      message: 'input.limits.max_depth is 17; it must be from 1 to 16',
    })
    expect(fails('recall', { objective: 'x', limits: withoutItems })).toEqual({
      code: 'INVALID_REQUEST',
      message: 'input.limits.max_items is required',
    })
    expect(fails('update', { target: { kind: 'recall', id: 'r' }, patch: {} }).message).toBe(
      'input.target.kind must be one of memory, relationship',
    )
    expect(
      fails('consolidate', {
        mode: { mode: 'propose', proposal_id: 'p' },
        memory_ids: ['a', 'b'],
        reason: 'r',
        preserve_disagreements: true,
      }).message,
    ).toBe('input.mode.proposal_id is not a field of this contract')
    expect(fails('forget', { memory_id: 'm', mode: 'expire', reason: 'r' }).message).toBe(
      'input.expires_at is required when mode is expire',
    )
  })

  it('accept null for optional fields and normalise absent ones', () => {
    const parsed = parseRequest(
      request('remember', { ...note, identity_key: null, tags: null, valid_until: null }),
    )
    expect(parsed.input).toMatchObject({ identity_key: null, tags: [], valid_until: null, confidence: null })
  })
})
