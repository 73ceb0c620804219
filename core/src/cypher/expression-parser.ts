import type { BinaryOp, Expr, LabelExpr } from './ast.js'
import { budgetError } from './errors.js'
import { TokenStream } from './token-stream.js'

const INT64_MAX = (1n << 63n) - 1n
const COMPARISON: Record<string, BinaryOp> = {
  '=': '=',
  '<>': '<>',
  '!=': '<>',
  '<': '<',
  '>': '>',
  '<=': '<=',
  '>=': '>=',
}
/** Second words of two-word type names: `LOCAL DATETIME`, `ZONED TIME`, `PROPERTY VALUE`, … */
const TYPE_SECOND_WORDS = new Set(['DATETIME', 'TIME', 'VALUE', 'NODE', 'RELATIONSHIP', 'EDGE', 'PATH'])

/** Expressions by operator precedence, from OR down to the postfix operators (`.key`, `[i]`, `:Label`). */
export abstract class ExpressionParser extends TokenStream {
  private depth = 0

  constructor(
    text: string,
    private readonly maxDepth: number,
  ) {
    super(text)
  }

  /** Bounded recursion: deep nesting is a clean budget error, never a stack overflow. */
  private enter(): void {
    if (++this.depth > this.maxDepth) throw budgetError('expression_depth', this.depth, this.maxDepth)
  }

  parseExpr(): Expr {
    this.enter()
    try {
      return this.parseOr()
    } finally {
      this.depth--
    }
  }

  protected binary(op: BinaryOp, left: Expr, right: Expr): Expr {
    return { kind: 'binary', op, left, right, start: left.start, end: right.end }
  }

  private parseOr(): Expr {
    let left = this.parseXor()
    while (this.acceptKeyword('OR')) left = this.binary('OR', left, this.parseXor())
    return left
  }

  private parseXor(): Expr {
    let left = this.parseAnd()
    while (this.acceptKeyword('XOR')) left = this.binary('XOR', left, this.parseAnd())
    return left
  }

  private parseAnd(): Expr {
    let left = this.parseNot()
    while (this.acceptKeyword('AND')) left = this.binary('AND', left, this.parseNot())
    return left
  }

  private parseNot(): Expr {
    const start = this.peek().start
    if (this.acceptKeyword('NOT')) {
      this.enter()
      try {
        const operand = this.parseNot()
        return { kind: 'unary', op: 'NOT', operand, start, end: operand.end }
      } finally {
        this.depth--
      }
    }
    return this.parseComparison()
  }

  protected comparisonOp(): BinaryOp | undefined {
    const token = this.peek()
    return token.kind === 'punct' ? COMPARISON[token.text] : undefined
  }

  /** `a < b < c` means `a < b AND b < c`. */
  private parseComparison(): Expr {
    const first = this.parsePredicates()
    let op = this.comparisonOp()
    if (op === undefined) return first
    let result: Expr | undefined
    let left = first
    while (op !== undefined) {
      this.next()
      const right = this.parsePredicates()
      const cmp = this.binary(op, left, right)
      result = result === undefined ? cmp : this.binary('AND', result, cmp)
      left = right
      op = this.comparisonOp()
    }
    return result as Expr
  }

  /** The predicates (IS NULL, STARTS WITH, IN, …) on `given`, or on the next additive expression. */
  protected parsePredicates(given?: Expr): Expr {
    let left = given ?? this.parseAdditive()
    for (;;) {
      if (this.isKeyword('IS')) {
        const negated = this.isKeyword('NOT', 1)
        const at = negated ? 2 : 1
        if (this.isKeyword('NULL', at)) {
          this.pos += at + 1
          left = { kind: 'isNull', operand: left, negated, start: left.start, end: this.lastEnd() }
        } else if (this.isKeyword('TYPED', at) || (this.isPunct(':', at) && this.isPunct(':', at + 1))) {
          this.pos += this.isKeyword('TYPED', at) ? at + 1 : at + 2
          const type = this.parseTypeName()
          left = {
            kind: 'typePredicate',
            operand: left,
            type,
            negated,
            start: left.start,
            end: this.lastEnd(),
          }
        } else if (this.isKeyword('NORMALIZED', at) || this.isKeyword('NORMALIZED', at + 1)) {
          this.pos += at
          let form = 'NFC'
          if (!this.isKeyword('NORMALIZED')) form = this.expectName('a normal form').toUpperCase()
          this.expectKeyword('NORMALIZED')
          const end = this.lastEnd()
          const call: Expr = {
            kind: 'call',
            name: 'isNormalized',
            args: [left, { kind: 'literal', value: form, start: end, end }],
            distinct: false,
            star: false,
            start: left.start,
            end,
          }
          left = negated ? { kind: 'unary', op: 'NOT', operand: call, start: left.start, end } : call
        } else throw this.unexpected('NULL, NORMALIZED or :: TYPE', this.peek(at))
      } else if (this.isPunct(':') && this.isPunct(':', 1)) {
        this.pos += 2
        const type = this.parseTypeName()
        left = {
          kind: 'typePredicate',
          operand: left,
          type,
          negated: false,
          start: left.start,
          end: this.lastEnd(),
        }
      } else if (this.acceptKeyword('STARTS', 'WITH'))
        left = this.binary('STARTS WITH', left, this.parseAdditive())
      else if (this.acceptKeyword('ENDS', 'WITH')) left = this.binary('ENDS WITH', left, this.parseAdditive())
      else if (this.acceptKeyword('CONTAINS')) left = this.binary('CONTAINS', left, this.parseAdditive())
      else if (this.acceptKeyword('IN')) left = this.binary('IN', left, this.parseAdditive())
      else if (this.acceptPunct('=~')) left = this.binary('=~', left, this.parseAdditive())
      else return left
    }
  }

  private parseAdditive(): Expr {
    let left = this.parseMultiplicative()
    for (;;) {
      if (this.acceptPunct('+')) left = this.binary('+', left, this.parseMultiplicative())
      else if (this.atDoubleBar()) {
        this.next()
        this.next()
        left = this.binary('||', left, this.parseMultiplicative())
      } else if (this.acceptPunct('-')) left = this.binary('-', left, this.parseMultiplicative())
      else return left
    }
  }

  /** `||`: two adjacent `|` tokens (the lexer keeps `|` single for label and type alternatives). */
  private atDoubleBar(): boolean {
    return this.isPunct('|') && this.isPunct('|', 1) && this.peek().end === this.peek(1).start
  }

  private parseMultiplicative(): Expr {
    let left = this.parsePower()
    for (;;) {
      if (this.acceptPunct('*')) left = this.binary('*', left, this.parsePower())
      else if (this.acceptPunct('/')) left = this.binary('/', left, this.parsePower())
      else if (this.acceptPunct('%')) left = this.binary('%', left, this.parsePower())
      else return left
    }
  }

  private parsePower(): Expr {
    let left = this.parseUnary()
    while (this.acceptPunct('^')) left = this.binary('^', left, this.parseUnary())
    return left
  }

  private parseUnary(): Expr {
    const token = this.peek()
    if (token.kind === 'punct' && (token.text === '-' || token.text === '+')) {
      this.next()
      const literal = this.peek()
      // A negative literal is parsed whole so -9223372036854775808 is in range.
      if (
        token.text === '-' &&
        (literal.kind === 'int' || literal.kind === 'float') &&
        literal.start === token.end
      ) {
        const after = this.peek(1)
        const postfix =
          after.kind === 'punct' && (after.text === '.' || after.text === '[' || after.text === '^')
        if (!postfix) {
          this.next()
          return {
            ...this.numberLiteral(literal.text, literal.kind, literal.start, true),
            start: token.start,
          }
        }
      }
      this.enter()
      try {
        const operand = this.parseUnary()
        return { kind: 'unary', op: token.text as '-' | '+', operand, start: token.start, end: operand.end }
      } finally {
        this.depth--
      }
    }
    return this.parsePostfix(this.parseAtom())
  }

  private parsePostfix(atom: Expr): Expr {
    let expr = atom
    for (;;) {
      if (this.isPunct('.') && this.isName(1)) {
        this.next()
        const key = this.expectName('a property key')
        expr = { kind: 'prop', target: expr, key, start: expr.start, end: this.lastEnd() }
      } else if (this.isPunct('[')) {
        this.next()
        if (this.acceptPunct('..')) {
          const to = this.isPunct(']') ? undefined : this.parseExpr()
          this.expectPunct(']')
          expr = { kind: 'slice', target: expr, from: undefined, to, start: expr.start, end: this.lastEnd() }
          continue
        }
        const index = this.parseExpr()
        if (this.acceptPunct('..')) {
          const to = this.isPunct(']') ? undefined : this.parseExpr()
          this.expectPunct(']')
          expr = { kind: 'slice', target: expr, from: index, to, start: expr.start, end: this.lastEnd() }
          continue
        }
        this.expectPunct(']')
        expr = { kind: 'index', target: expr, index, start: expr.start, end: this.lastEnd() }
      } else if (
        this.isPunct(':') &&
        (this.isName(1) || this.isPunct('!', 1) || this.isPunct('%', 1) || this.isPunct('(', 1))
      ) {
        const { labels, labelExpr } = this.parseLabels(true)
        expr =
          labelExpr === undefined
            ? { kind: 'hasLabels', target: expr, labels, start: expr.start, end: this.lastEnd() }
            : { kind: 'labelExpr', target: expr, expr: labelExpr, start: expr.start, end: this.lastEnd() }
      } else return expr
    }
  }

  protected numberLiteral(text: string, kind: 'int' | 'float', start: number, negative: boolean): Expr {
    const end = start + text.length
    if (kind === 'float') {
      const value = Number(text) * (negative ? -1 : 1)
      if (!Number.isFinite(value))
        throw this.errorAt('FLOATING_POINT_OVERFLOW', `float literal ${text} is out of range`, start)
      return { kind: 'literal', value, start, end }
    }
    let magnitude: bigint
    const lower = text.toLowerCase()
    if (lower.startsWith('0o')) magnitude = BigInt(`0o${text.slice(2)}`)
    else if (lower.startsWith('0x')) magnitude = BigInt(text)
    else if (text.length > 1 && text.startsWith('0')) {
      if (!/^[0-7]+$/.test(text))
        throw this.errorAt('INVALID_NUMBER_LITERAL', `invalid number literal '${text}'`, start)
      magnitude = BigInt(`0o${text.slice(1)}`)
    } else magnitude = BigInt(text)
    const value = negative ? -magnitude : magnitude
    if (value > INT64_MAX || value < -INT64_MAX - 1n) {
      throw this.errorAt(
        'INTEGER_OVERFLOW',
        `integer literal ${negative ? '-' : ''}${text} is out of range`,
        start,
      )
    }
    return { kind: 'literal', value, start, end }
  }

  /** `INTEGER`, `STRING NOT NULL`, `LIST<INTEGER>`, `INTEGER | FLOAT`: kept as normalised text. */
  private parseTypeName(): string {
    const one = (): string => {
      let name = this.expectName('a type').toUpperCase()
      if (name === 'ANY' && this.isPunct('<')) {
        this.next()
        const inner = this.parseTypeName()
        this.expectPunct('>')
        return inner
      }
      if ((name === 'LIST' || name === 'ARRAY') && this.acceptPunct('<')) {
        name = `LIST<${this.parseTypeName()}>`
        this.expectPunct('>')
      } else if (
        this.isName() &&
        !this.isKeyword('NOT') &&
        TYPE_SECOND_WORDS.has(this.peek().text.toUpperCase())
      ) {
        name = `${name} ${this.next().text.toUpperCase()}`
      } else if (
        (name === 'TIMESTAMP' || name === 'TIME') &&
        (this.isKeyword('WITH') || this.isKeyword('WITHOUT')) &&
        this.isKeyword('TIME', 1) &&
        this.isKeyword('ZONE', 2)
      ) {
        // The GQL spellings: TIMESTAMP WITH TIME ZONE is ZONED DATETIME, TIME WITHOUT TIME ZONE is LOCAL TIME, …
        const zoned = this.next().text.toUpperCase() === 'WITH'
        this.pos += 2
        name = `${zoned ? 'ZONED' : 'LOCAL'} ${name === 'TIMESTAMP' ? 'DATETIME' : 'TIME'}`
      }
      if (this.isKeyword('NOT') && this.isKeyword('NULL', 1)) {
        this.pos += 2
        name += ' NOT NULL'
      }
      return name
    }
    let type = one()
    while (this.isPunct('|') && this.isName(1)) {
      this.next()
      type += ` | ${one()}`
    }
    return type
  }

  /** What the operators apply to (literals, variables, calls, CASE, lists, maps), parsed by atom-parser.ts. */
  protected abstract parseAtom(): Expr

  /** Label expressions (`A|B`, `!A`, `%`), parsed by the pattern parser. */
  protected abstract parseLabels(inExpression: boolean): {
    labels: string[]
    labelExpr: LabelExpr | undefined
  }
}
