import { describe, expect, it } from 'vitest'
import { objectiveTerms, tokenize } from './tokenizer.js'

describe('tokenizer', () => {
  it('splits on non-alphanumerics, drops one-character tokens and lower-cases', () => {
    expect(tokenize('Spear-Phishing via T1566.001, a_b x')).toEqual([
      'spear',
      'phishing',
      'via',
      't1566',
      '001',
    ])
  })
  it('is Unicode-aware', () => {
    expect(tokenize('Désinformation «Ügyfél» 東京 ｆｕｌｌ')).toEqual([
      'désinformation',
      'ügyfél',
      '東京',
      'full',
    ])
    expect(tokenize('𝒳 é')).toEqual([])
  })
  it('objective terms drop stopwords and duplicates, keeping first order', () => {
    expect(objectiveTerms('Find all the PLC firmware tied to firmware on a PLC')).toEqual(['plc', 'firmware'])
    expect(objectiveTerms('show me what is in this')).toEqual(['me'])
    expect(objectiveTerms('list all of that')).toEqual([])
  })
})
