import { describe, expect, it } from 'vitest'
import { CypherError } from './errors.js'
import { tokenize } from './lexer.js'

const kinds = (text: string) => tokenize(text).map((t) => `${t.kind}:${t.text}`)

describe('lexer', () => {
  it('tokenizes identifiers, numbers, strings, parameters and punctuation with offsets', () => {
    const tokens = tokenize("MATCH (n:Person {name: 'Ann'}) WHERE n.age >= $min RETURN n")
    expect(tokens.map((t) => t.text).slice(0, 6)).toEqual(['MATCH', '(', 'n', ':', 'Person', '{'])
    const param = tokens.find((t) => t.kind === 'param')
    expect(param).toMatchObject({ text: 'min', start: 46, end: 50 })
    expect(tokens.find((t) => t.kind === 'string')?.text).toBe('Ann')
    expect(tokens.at(-1)?.kind).toBe('eof')
  })

  it('distinguishes integers, floats, ranges and leading-dot floats', () => {
    expect(kinds('1..3')).toEqual(['int:1', 'punct:..', 'int:3', 'eof:'])
    expect(kinds('1.5e3 .5 0x1F 0o17')).toEqual(['float:1.5e3', 'float:.5', 'int:0x1F', 'int:0o17', 'eof:'])
    expect(kinds('n.x')).toEqual(['ident:n', 'punct:.', 'ident:x', 'eof:'])
  })

  it('decodes escapes and quoted names, skips comments', () => {
    expect(kinds("'a\\'b\\n' `we``ird` // comment\n/* block */ x")).toEqual([
      "string:a'b\n",
      'quoted:we`ird',
      'ident:x',
      'eof:',
    ])
    expect(tokenize('"\\u00e9"')[0]?.text).toBe('é')
  })

  it('keeps arrows as separate tokens so a<-1 means a < -1', () => {
    expect(kinds('a<-1')).toEqual(['ident:a', 'punct:<', 'punct:-', 'int:1', 'eof:'])
    expect(kinds('<>=~+=')).toEqual(['punct:<>', 'punct:=~', 'punct:+=', 'eof:'])
  })

  it('reports bad input with a position', () => {
    try {
      tokenize('RETURN\n  1 # 2')
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(CypherError)
      expect((error as CypherError).position).toEqual({ line: 2, column: 5, offset: 11 })
    }
    expect(() => tokenize("'open")).toThrow(/unterminated/)
    expect(() => tokenize('0x1G')).toThrow(/invalid number/)
  })
})
