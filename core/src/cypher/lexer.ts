import { syntaxError } from './errors.js'

export type TokenKind = 'ident' | 'quoted' | 'int' | 'float' | 'string' | 'param' | 'punct' | 'eof'

/**
 * `text` is the identifier name, the decoded string, the number's source text, the parameter name or
 * the punctuation symbol. `start`/`end` are offsets into the query.
 */
export interface Token {
  kind: TokenKind
  text: string
  start: number
  end: number
}

const PUNCT3 = new Set(['...'])
const PUNCT2 = new Set(['..', '<>', '!=', '<=', '>=', '=~', '+='])
const PUNCT1 = new Set('()[]{},.:|;+-*/%^=<>&!'.split(''))

const isDigit = (c: string): boolean => c >= '0' && c <= '9'
const IDENT_START = /[\p{ID_Start}_]/u
const IDENT_PART = /[\p{ID_Continue}$]/u

export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  const n = text.length
  let i = 0
  while (i < n) {
    const c = text[i] as string
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || /\s/u.test(c)) {
      i++
      continue
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++
      continue
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2)
      if (close < 0) throw syntaxError('CYPHER_SYNTAX_ERROR', 'unterminated comment', at(text, i))
      i = close + 2
      continue
    }
    const start = i
    if (isDigit(c) || (c === '.' && isDigit(text[i + 1] ?? '') && !endsOperand(tokens, i))) {
      i = lexNumber(text, i, tokens)
      continue
    }
    if (c === "'" || c === '"') {
      i = lexString(text, i, tokens)
      continue
    }
    if (c === '`') {
      let name = ''
      i++
      for (;;) {
        if (i >= n) throw syntaxError('CYPHER_SYNTAX_ERROR', 'unterminated quoted name', at(text, start))
        if (text[i] === '`') {
          if (text[i + 1] === '`') {
            name += '`'
            i += 2
            continue
          }
          i++
          break
        }
        name += text[i]
        i++
      }
      tokens.push({ kind: 'quoted', text: name, start, end: i })
      continue
    }
    if (c === '$') {
      // `$(expr)`: a dynamic label or type (Neo4j 5.26), not a parameter.
      if (text[i + 1] === '(') {
        tokens.push({ kind: 'punct', text: '$', start, end: i + 1 })
        i++
        continue
      }
      i++
      let name = ''
      if (text[i] === '`') {
        const close = text.indexOf('`', i + 1)
        if (close < 0)
          throw syntaxError('CYPHER_SYNTAX_ERROR', 'unterminated parameter name', at(text, start))
        name = text.slice(i + 1, close)
        i = close + 1
      } else {
        while (i < n && IDENT_PART.test(text[i] as string)) name += text[i++]
      }
      if (name === '')
        throw syntaxError('CYPHER_SYNTAX_ERROR', 'expected a parameter name after $', at(text, start))
      tokens.push({ kind: 'param', text: name, start, end: i })
      continue
    }
    if (IDENT_START.test(c)) {
      while (i < n && IDENT_PART.test(text[i] as string)) i++
      tokens.push({ kind: 'ident', text: text.slice(start, i), start, end: i })
      continue
    }
    const three = text.slice(i, i + 3)
    const two = text.slice(i, i + 2)
    // Arrows stay separate tokens (`<`, `-`, `>`): in expressions `a<-1` means `a < -1`.
    const sym = PUNCT3.has(three) ? three : PUNCT2.has(two) ? two : PUNCT1.has(c) ? c : undefined
    if (sym === undefined) {
      throw syntaxError('CYPHER_SYNTAX_ERROR', `unexpected character '${c}'`, at(text, i))
    }
    i += sym.length
    tokens.push({ kind: 'punct', text: sym, start, end: i })
  }
  tokens.push({ kind: 'eof', text: '', start: n, end: n })
  return tokens
}

/** `.5` is a number unless it directly follows an operand (then `.` is property access). */
function endsOperand(tokens: Token[], at: number): boolean {
  const last = tokens[tokens.length - 1]
  if (last === undefined || last.end !== at) return false
  if (last.kind === 'punct') return last.text === ')' || last.text === ']' || last.text === '}'
  return true
}

function at(text: string, offset: number) {
  let line = 1
  let lineStart = 0
  for (let k = 0; k < offset; k++) {
    if (text.charCodeAt(k) === 10) {
      line++
      lineStart = k + 1
    }
  }
  return { line, column: offset - lineStart + 1, offset }
}

function lexNumber(text: string, i: number, tokens: Token[]): number {
  const start = i
  const n = text.length
  const word = (from: number): number => {
    let k = from
    while (k < n && IDENT_PART.test(text[k] as string)) k++
    return k
  }
  if (
    text[i] === '0' &&
    (text[i + 1] === 'x' || text[i + 1] === 'X' || text[i + 1] === 'o' || text[i + 1] === 'O')
  ) {
    const end = word(i)
    const body = text.slice(i + 2, end)
    const hex = text[i + 1] === 'x' || text[i + 1] === 'X'
    if (body === '' || !(hex ? /^[0-9a-fA-F]+$/ : /^[0-7]+$/).test(body)) {
      throw syntaxError(
        'INVALID_NUMBER_LITERAL',
        `invalid number literal '${text.slice(i, end)}'`,
        at(text, i),
      )
    }
    tokens.push({ kind: 'int', text: text.slice(i, end), start, end })
    return end
  }
  while (i < n && isDigit(text[i] as string)) i++
  let float = false
  if (text[i] === '.' && isDigit(text[i + 1] ?? '')) {
    float = true
    i++
    while (i < n && isDigit(text[i] as string)) i++
  }
  if (text[i] === 'e' || text[i] === 'E') {
    let k = i + 1
    if (text[k] === '+' || text[k] === '-') k++
    if (isDigit(text[k] ?? '')) {
      float = true
      i = k
      while (i < n && isDigit(text[i] as string)) i++
    }
  }
  if (i < n && IDENT_PART.test(text[i] as string)) {
    const end = word(i)
    throw syntaxError(
      'INVALID_NUMBER_LITERAL',
      `invalid number literal '${text.slice(start, end)}'`,
      at(text, start),
    )
  }
  tokens.push({ kind: float ? 'float' : 'int', text: text.slice(start, i), start, end: i })
  return i
}

const ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}

function lexString(text: string, i: number, tokens: Token[]): number {
  const quote = text[i]
  const start = i
  const n = text.length
  let value = ''
  i++
  for (;;) {
    if (i >= n) throw syntaxError('CYPHER_SYNTAX_ERROR', 'unterminated string literal', at(text, start))
    const c = text[i] as string
    if (c === quote) {
      i++
      break
    }
    if (c === '\\') {
      const e = text[i + 1] ?? ''
      const simple = ESCAPES[e]
      if (simple !== undefined) {
        value += simple
        i += 2
        continue
      }
      if (e === 'u' || e === 'U') {
        const len = e === 'u' ? 4 : 8
        const hex = text.slice(i + 2, i + 2 + len)
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) {
          throw syntaxError('INVALID_UNICODE_LITERAL', `invalid unicode escape '\\${e}${hex}'`, at(text, i))
        }
        const code = Number.parseInt(hex, 16)
        if (code > 0x10ffff)
          throw syntaxError('INVALID_UNICODE_LITERAL', 'unicode escape out of range', at(text, i))
        value += String.fromCodePoint(code)
        i += 2 + len
        continue
      }
      // Unknown escapes keep the backslash, as Neo4j does.
      value += c
      i++
      continue
    }
    value += c
    i++
  }
  tokens.push({ kind: 'string', text: value, start, end: i })
  return i
}
