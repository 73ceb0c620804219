import { describe, expect, it } from 'vitest'
import { isEngineError } from '../errors.js'
import { COMMON_SHARE, overbroadTerms, parseSeedRequest, selectSeeds } from './rules.js'

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
  it('never OVERBROAD from the match count alone', () => {
    const many = scores(...Array.from({ length: 50 }, (_, i) => 1 - i / 100))
    expect(selectSeeds(many, 1)).toHaveLength(1)
  })
  it('AMBIGUOUS only for a tie from the first candidate across the cut', () => {
    expect(codeOf(() => selectSeeds(scores(0.5, 0.5, 0.1), 2))).toBe('ok') // tie inside the top_k
    expect(codeOf(() => selectSeeds(scores(0.5, 0.5, 0.5), 2))).toBe('unprocessable:AMBIGUOUS_SEED')
    expect(codeOf(() => selectSeeds(scores(0.9, 0.5, 0.5), 2))).toBe('ok') // the best is clear
    expect(codeOf(() => selectSeeds(scores(0.5, 0.5 - 5e-10), 1))).toBe('unprocessable:AMBIGUOUS_SEED')
    expect(codeOf(() => selectSeeds(scores(0.5, 0.5 - 2e-9), 1))).toBe('ok')
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

describe('overbroadTerms', () => {
  const t = (...df: number[]) => df.map((d, i) => ({ term: `t${i}`, df: d }))
  it('refuses only when every term is above max(top_k x 10, COMMON_SHARE x N)', () => {
    const n = 1000 // COMMON_SHARE x N = 150 > top_k x 10 = 100
    const limit = COMMON_SHARE * n
    expect(overbroadTerms(t(limit + 1, 900), n, 10)?.code).toBe('OVERBROAD_OBJECTIVE')
    expect(overbroadTerms(t(limit, 900), n, 10)).toBeNull()
    expect(overbroadTerms(t(100), 100, 10)).toBeNull() // 100% of the nodes, but not above top_k x 10 = 100
    expect(overbroadTerms(t(100), 100, 9)?.code).toBe('OVERBROAD_OBJECTIVE')
    expect(overbroadTerms(t(91), 100, 9)?.code).toBe('OVERBROAD_OBJECTIVE')
    expect(overbroadTerms(t(90), 100, 9)).toBeNull()
    expect(overbroadTerms([], n, 10)).toBeNull()
    expect(overbroadTerms(t(900), n, 10)?.message).toMatch(/^every term .+ \(fix: .+\)$/)
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
