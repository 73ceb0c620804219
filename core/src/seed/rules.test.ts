import { describe, expect, it } from 'vitest'
import { isEngineError } from '../errors.js'
import { parseSeedRequest, selectSeeds } from './rules.js'

const codeOf = (fn: () => unknown) => {
  try {
    fn()
  } catch (e) {
    return isEngineError(e) ? `${e.category}:${e.code}` : String(e)
  }
  return 'ok'
}
const scores = (...s: number[]) => s.map((score, i) => ({ score, id: i }))

describe('parseSeedRequest', () => {
  it('applies defaults and aliases', () => {
    expect(parseSeedRequest({ objective: ' plc ' })).toEqual({
      objective: 'plc',
      workspaceId: undefined,
      profile: 'cross_domain',
      mode: 'hybrid',
      topK: 10,
      threshold: 0,
    })
    const p = parseSeedRequest({ objective: 'x', mode: ' Full-Text ', domain_profile: 'CROSS-DOMAIN' })
    expect([p.mode, p.profile]).toEqual(['full_text', 'cross_domain'])
    expect(parseSeedRequest({ objective: 'x', mode: 'fulltext' }).mode).toBe('full_text')
  })
  it('rejects in the reference order with its codes', () => {
    expect(codeOf(() => parseSeedRequest({ objective: '', domain_profile: 'med', mode: 'x' }))).toBe(
      'invalid:INVALID_DOMAIN_PROFILE',
    )
    expect(codeOf(() => parseSeedRequest({ objective: '', mode: 'bm25' }))).toBe(
      'invalid:INVALID_RETRIEVAL_MODE',
    )
    expect(codeOf(() => parseSeedRequest({ objective: '  ', workspace_id: '' }))).toBe(
      'invalid:INVALID_SEED_REQUEST',
    )
    expect(codeOf(() => parseSeedRequest({ objective: 'x', top_k: 0 }))).toBe('invalid:INVALID_SEED_REQUEST')
    expect(codeOf(() => parseSeedRequest({ objective: 'x', top_k: 1.5 }))).toBe(
      'invalid:INVALID_SEED_REQUEST',
    )
    expect(codeOf(() => parseSeedRequest({ objective: 'x', score_threshold: 1.0000001 }))).toBe(
      'invalid:INVALID_SEED_REQUEST',
    )
    expect(codeOf(() => parseSeedRequest({ objective: 'x', score_threshold: -0.1 }))).toBe(
      'invalid:INVALID_SEED_REQUEST',
    )
    expect(codeOf(() => parseSeedRequest({ objective: 'x', score_threshold: 1 }))).toBe('ok')
    expect(codeOf(() => parseSeedRequest({ objective: 'x', workspace_id: ' ' }))).toBe(
      'invalid:INVALID_WORKSPACE_ID',
    )
  })
})

describe('selectSeeds', () => {
  it('NO_SEED on nothing', () => {
    expect(codeOf(() => selectSeeds([], 3))).toBe('unprocessable:NO_SEED')
  })
  it('OVERBROAD strictly above top_k x 10', () => {
    const ten = scores(...Array.from({ length: 10 }, (_, i) => 1 - i / 100))
    expect(selectSeeds(ten, 1)).toHaveLength(1)
    expect(codeOf(() => selectSeeds([...ten, { score: 0.01, id: 99 }], 1))).toBe(
      'unprocessable:OVERBROAD_OBJECTIVE',
    )
  })
  it('AMBIGUOUS only for a tie across the cut', () => {
    expect(codeOf(() => selectSeeds(scores(0.5, 0.5, 0.1), 2))).toBe('ok') // tie inside the top_k
    expect(codeOf(() => selectSeeds(scores(0.9, 0.5, 0.5), 2))).toBe('unprocessable:AMBIGUOUS_SEED')
    expect(codeOf(() => selectSeeds(scores(0.9, 0.5, 0.5), 1))).toBe('ok')
    expect(codeOf(() => selectSeeds(scores(0.9, 0.5, 0.5 - 5e-10), 2))).toBe('unprocessable:AMBIGUOUS_SEED')
    expect(codeOf(() => selectSeeds(scores(0.9, 0.5, 0.5 - 2e-9), 2))).toBe('ok')
    expect(codeOf(() => selectSeeds(scores(0.5, 0.5), 2))).toBe('ok') // not more than top_k
  })
  it('messages carry a fix hint', () => {
    try {
      selectSeeds([], 1)
    } catch (e) {
      expect((e as Error).message).toMatch(/^.+ \(fix: .+\)$/)
    }
  })
})

describe('Object.prototype names (a fuzz finding)', () => {
  it('are not aliases of a mode or a profile', () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      expect(codeOf(() => parseSeedRequest({ objective: 'x', mode: name }))).toBe(
        'invalid:INVALID_RETRIEVAL_MODE',
      )
      expect(codeOf(() => parseSeedRequest({ objective: 'x', domain_profile: name }))).toBe(
        'invalid:INVALID_DOMAIN_PROFILE',
      )
    }
  })
})
