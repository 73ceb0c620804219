import { describe, expect, it } from 'vitest'
import { objectiveTerms, searchTerms, stem, tokenize } from './tokenizer.js'

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
  it('stems lightly so inflections meet, leaving ids and short words alone', () => {
    const same = (a: string, b: string) => expect(stem(a)).toBe(stem(b))
    same('steal', 'stealing')
    same('plc', 'plcs')
    same('modify', 'modified')
    same('disable', 'disabled')
    same('stop', 'stopped')
    same('policy', 'policies')
    expect(stem('t0829')).toBe('t0829')
    expect(stem('access')).toBe('access')
    expect(stem('gps')).toBe('gps')
  })
  it('search terms drop question words, then stem and de-duplicate', () => {
    expect(searchTerms('How do attackers steal SMS messages on Android?')).toEqual([
      'attacker',
      'steal',
      'sms',
      'messag',
      'android',
    ])
    expect(searchTerms('how can they do it')).toEqual([])
  })
})
