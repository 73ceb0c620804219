import { describe, expect, it } from 'vitest'
import { degreeSignal, fuse, rationale } from './fusion.js'

const base = { lexical: 0.5, dense: 0.8, degree: 0.25, confidence: 0.5, status: 0.7 }

describe('fusion', () => {
  it('degree signal follows FACTS', () => {
    expect(degreeSignal(0, 0)).toBe(0)
    expect(degreeSignal(3, 3)).toBe(1)
    expect(degreeSignal(1, 3)).toBeCloseTo(Math.log(2) / Math.log(4), 12)
  })
  it('hybrid without dense is FACTS hybrid with content 0.75 and degree 0.10', () => {
    const s = fuse('hybrid', { ...base, dense: null })
    expect(s.score).toBeCloseTo(0.75 * 0.5 + 0.1 * 0.25 + 0.1 * 0.5 + 0.05 * 0.7, 12)
  })
  it('hybrid with dense splits the content slot', () => {
    const s = fuse('hybrid', base, 0.3)
    expect(s.score).toBeCloseTo(0.75 * (0.7 * 0.5 + 0.3 * 0.8) + 0.025 + 0.05 + 0.035, 12)
    expect(s.parts.map(([n]) => n)).toEqual(['lexical', 'dense', 'degree', 'confidence', 'status'])
  })
  it('full_text, vector and semantic', () => {
    expect(fuse('full_text', base).score).toBe(0.5)
    expect(fuse('vector', base).score).toBe(0.8)
    expect(fuse('semantic', base).score).toBeCloseTo(0.75 * 0.8 + 0.025 + 0.05 + 0.035, 12)
  })
  it('the rationale names every contribution', () => {
    const text = rationale('hybrid', fuse('hybrid', base), base, ['plc'])
    expect(text).toMatch(
      /^hybrid score 0\.\d{4} = lexical .* \+ dense .* \+ degree .* \+ confidence .* \+ status .*; matched terms: plc$/,
    )
  })
})
