import { type CypherError, positionAt, syntaxError } from './errors.js'
import { type Token, tokenize } from './lexer.js'

/** Token cursor with the keyword helpers the parsers share. Keywords are case-insensitive identifiers. */
export class TokenStream {
  protected readonly tokens: Token[]
  protected pos = 0

  constructor(readonly text: string) {
    this.tokens = tokenize(text)
  }

  protected peek(ahead = 0): Token {
    return this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)] as Token
  }

  protected next(): Token {
    const token = this.peek()
    if (this.pos < this.tokens.length - 1) this.pos++
    return token
  }

  /** End offset of the last consumed token. */
  protected lastEnd(): number {
    return this.pos > 0 ? (this.tokens[this.pos - 1] as Token).end : 0
  }

  protected isPunct(symbol: string, ahead = 0): boolean {
    const token = this.peek(ahead)
    return token.kind === 'punct' && token.text === symbol
  }

  protected isKeyword(word: string, ahead = 0): boolean {
    const token = this.peek(ahead)
    return token.kind === 'ident' && token.text.toUpperCase() === word
  }

  protected acceptPunct(symbol: string): boolean {
    if (!this.isPunct(symbol)) return false
    this.next()
    return true
  }

  protected acceptKeyword(...words: string[]): boolean {
    for (let k = 0; k < words.length; k++) if (!this.isKeyword(words[k] as string, k)) return false
    this.pos += words.length
    return true
  }

  protected expectPunct(symbol: string): Token {
    if (!this.isPunct(symbol)) throw this.unexpected(`'${symbol}'`)
    return this.next()
  }

  protected expectKeyword(...words: string[]): void {
    if (!this.acceptKeyword(...words)) throw this.unexpected(words.join(' '))
  }

  /** An identifier or a `quoted` name (labels, keys, variables). */
  protected expectName(what = 'a name'): string {
    const token = this.peek()
    if (token.kind === 'ident' || token.kind === 'quoted') {
      this.next()
      return token.text
    }
    throw this.unexpected(what)
  }

  protected isName(ahead = 0): boolean {
    const kind = this.peek(ahead).kind
    return kind === 'ident' || kind === 'quoted'
  }

  protected unexpected(expected: string, token: Token = this.peek()): CypherError {
    const found = token.kind === 'eof' ? 'end of input' : `'${this.text.slice(token.start, token.end)}'`
    return syntaxError(
      'CYPHER_SYNTAX_ERROR',
      `expected ${expected} but found ${found}`,
      positionAt(this.text, token.start),
    )
  }

  protected errorAt(code: string, message: string, offset: number): CypherError {
    return syntaxError(code, message, positionAt(this.text, offset))
  }
}
