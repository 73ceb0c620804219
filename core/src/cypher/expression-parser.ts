import type { BinaryOp, Expr, LabelExpr, MapProjectionItem, PatternPart, Query } from './ast.js'
import { budgetError, CypherError } from './errors.js'
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
const QUANTIFIERS = new Set(['ALL', 'ANY', 'NONE', 'SINGLE'])
/** Second words of two-word type names: `LOCAL DATETIME`, `ZONED TIME`, `PROPERTY VALUE`, … */
const TYPE_SECOND_WORDS = new Set(['DATETIME', 'TIME', 'VALUE', 'NODE', 'RELATIONSHIP', 'EDGE', 'PATH'])

/** Expressions and patterns (patterns appear inside expressions as predicates and comprehensions). */
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

  private binary(op: BinaryOp, left: Expr, right: Expr): Expr {
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

  private comparisonOp(): BinaryOp | undefined {
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
  private parsePredicates(given?: Expr): Expr {
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

  private parseAtom(): Expr {
    const token = this.peek()
    const start = token.start
    switch (token.kind) {
      case 'int':
      case 'float':
        this.next()
        return this.numberLiteral(token.text, token.kind, start, false)
      case 'string':
        this.next()
        return { kind: 'literal', value: token.text, start, end: token.end }
      case 'param':
        this.next()
        return { kind: 'param', name: token.text, start, end: token.end }
      case 'quoted':
        this.next()
        return this.afterVariable(token.text, start)
      case 'ident':
        return this.parseIdentAtom()
      case 'punct':
        if (token.text === '(') return this.parseParenthesized()
        if (token.text === '[') return this.parseListLike()
        if (token.text === '{') return this.parseMapLiteral()
        break
      default:
        break
    }
    throw this.unexpected('an expression')
  }

  private afterVariable(name: string, start: number): Expr {
    if (this.isPunct('{')) return this.parseMapProjection(name, start)
    return { kind: 'var', name, start, end: this.lastEnd() }
  }

  private parseIdentAtom(): Expr {
    const token = this.next()
    const start = token.start
    const upper = token.text.toUpperCase()
    if (upper === 'TRUE' || upper === 'FALSE')
      return { kind: 'literal', value: upper === 'TRUE', start, end: token.end }
    if (upper === 'NULL') return { kind: 'literal', value: null, start, end: token.end }
    if (upper === 'CASE') return this.parseCase(start)
    if ((upper === 'EXISTS' || upper === 'COUNT' || upper === 'COLLECT') && this.isPunct('{')) {
      this.next()
      const query = this.parseSubqueryBody()
      this.expectPunct('}')
      const mode = upper.toLowerCase() as 'exists' | 'count' | 'collect'
      return { kind: 'subquery', mode, query, start, end: this.lastEnd() }
    }
    // Namespaced function names: a.b.c(...)
    let name = token.text
    let k = 0
    while (this.isPunct('.', k) && this.peek(k + 1).kind === 'ident') k += 2
    if (k > 0 && this.isPunct('(', k)) {
      for (let step = 0; step < k; step += 2) {
        this.next()
        name += `.${this.next().text}`
      }
    }
    if (!this.isPunct('(')) return this.afterVariable(token.text, start)
    this.next()
    if (upper === 'TRIM' && name === token.text) {
      const trim = this.parseTrimSyntax(start)
      if (trim !== undefined) return trim
    }
    if (QUANTIFIERS.has(upper) && this.isName() && this.isKeyword('IN', 1))
      return this.parseQuantifier(upper, start)
    if (upper === 'REDUCE') return this.parseReduce(start)
    if (this.acceptPunct('*')) {
      this.expectPunct(')')
      return { kind: 'call', name, args: [], distinct: false, star: true, start, end: this.lastEnd() }
    }
    const distinct = this.acceptKeyword('DISTINCT')
    if (!distinct) this.acceptKeyword('ALL')
    const args: Expr[] = []
    if (!this.isPunct(')')) {
      do args.push(this.parseExpr())
      while (this.acceptPunct(','))
    }
    this.expectPunct(')')
    // `normalize(s, NFKC)`: Neo4j writes the normal form as a bare keyword.
    const form = args[1]
    if (name.toLowerCase() === 'normalize' && form?.kind === 'var' && /^NFK?[CD]$/i.test(form.name))
      args[1] = { kind: 'literal', value: form.name.toUpperCase(), start: form.start, end: form.end }
    return { kind: 'call', name, args, distinct, star: false, start, end: this.lastEnd() }
  }

  /**
   * `trim([BOTH|LEADING|TRAILING] [chars] FROM source)`, after `trim(`; undefined (cursor restored) for the
   * plain call `trim(s)`.
   */
  private parseTrimSyntax(start: number): Expr | undefined {
    const mark = this.pos
    const mode = ['BOTH', 'LEADING', 'TRAILING'].find((word) => this.isKeyword(word))
    if (mode !== undefined) this.next()
    let chars: Expr | undefined
    let source: Expr
    if (this.acceptKeyword('FROM')) source = this.parseExpr()
    else {
      const first = this.parseExpr()
      if (this.acceptKeyword('FROM')) {
        chars = first
        source = this.parseExpr()
      } else if (mode === undefined) {
        this.pos = mark
        return undefined
      } else source = first
    }
    this.expectPunct(')')
    const name = mode === 'LEADING' ? 'ltrim' : mode === 'TRAILING' ? 'rtrim' : 'trim'
    const args = chars === undefined ? [source] : [source, chars]
    return { kind: 'call', name, args, distinct: false, star: false, start, end: this.lastEnd() }
  }

  private parseQuantifier(upper: string, start: number): Expr {
    const variable = this.expectName('a variable')
    this.expectKeyword('IN')
    const source = this.parseExpr()
    let where: Expr | undefined
    if (this.acceptKeyword('WHERE')) where = this.parseExpr()
    this.expectPunct(')')
    const quantifier = upper.toLowerCase() as 'all' | 'any' | 'none' | 'single'
    const end = this.lastEnd()
    return {
      kind: 'quantifier',
      quantifier,
      variable,
      source,
      where: where ?? { kind: 'literal', value: true, start: end, end },
      start,
      end,
    }
  }

  private parseReduce(start: number): Expr {
    const accumulator = this.expectName('an accumulator')
    this.expectPunct('=')
    const init = this.parseExpr()
    this.expectPunct(',')
    const variable = this.expectName('a variable')
    this.expectKeyword('IN')
    const source = this.parseExpr()
    this.expectPunct('|')
    const expr = this.parseExpr()
    this.expectPunct(')')
    return { kind: 'reduce', accumulator, init, variable, source, expr, start, end: this.lastEnd() }
  }

  private parseCase(start: number): Expr {
    const subject = this.isKeyword('WHEN') ? undefined : this.parseExpr()
    const whens: [Expr, Expr][] = []
    let extended = false
    while (this.acceptKeyword('WHEN')) {
      let when: Expr
      if (subject === undefined) when = this.parseExpr()
      else {
        // Neo4j 5's extended simple CASE: `WHEN 'a', 'b'`, `WHEN < 13`, `WHEN IS NULL`, `WHEN IS :: INTEGER`.
        const alternatives = [this.caseAlternative(subject)]
        while (this.acceptPunct(',')) alternatives.push(this.caseAlternative(subject))
        extended ||= alternatives.length > 1 || alternatives[0]?.extended === true
        when = alternatives.map((a) => a.test).reduce((a, b) => this.binary('OR', a, b))
      }
      this.expectKeyword('THEN')
      whens.push([when, this.parseExpr()])
    }
    if (whens.length === 0) throw this.unexpected('WHEN')
    const otherwise = this.acceptKeyword('ELSE') ? this.parseExpr() : undefined
    this.expectKeyword('END')
    const end = this.lastEnd()
    if (subject !== undefined && !extended) {
      // A plain simple CASE keeps its subject form: each WHEN is the compared value.
      const values = whens.map(([when, then]): [Expr, Expr] => [
        (when as Expr & { kind: 'binary' }).right,
        then,
      ])
      return { kind: 'case', subject, whens: values, otherwise, start, end }
    }
    return { kind: 'case', subject: undefined, whens, otherwise, start, end }
  }

  /** One alternative of an extended simple CASE as a test of the subject. */
  private caseAlternative(subject: Expr): { test: Expr; extended: boolean } {
    const op = this.comparisonOp()
    if (op !== undefined) {
      this.next()
      return { test: this.binary(op, subject, this.parsePredicates()), extended: true }
    }
    if (
      this.isKeyword('IS') ||
      this.isKeyword('STARTS') ||
      this.isKeyword('ENDS') ||
      this.isKeyword('CONTAINS') ||
      this.isPunct('=~') ||
      (this.isPunct(':') && this.isPunct(':', 1))
    )
      return { test: this.parsePredicates(subject), extended: true }
    return { test: this.binary('=', subject, this.parseExpr()), extended: false }
  }

  private parseParenthesized(): Expr {
    const mark = this.pos
    const pattern = this.tryPattern()
    if (pattern !== undefined && pattern.rels.length > 0) {
      return { kind: 'patternExists', pattern, start: pattern.start, end: pattern.end }
    }
    this.pos = mark
    this.next()
    const inner = this.parseExpr()
    this.expectPunct(')')
    return inner
  }

  /** Parses a pattern at the cursor, or returns undefined (cursor unspecified) when there is none. */
  private tryPattern(): PatternPart | undefined {
    try {
      return this.parsePatternPart()
    } catch (error) {
      if (error instanceof CypherError && error.code === 'CYPHER_SYNTAX_ERROR') return undefined
      throw error
    }
  }

  private parseListLike(): Expr {
    const start = this.next().start
    // [x IN list WHERE p | e]
    if (this.isName() && this.isKeyword('IN', 1)) {
      const variable = this.expectName()
      this.next()
      const source = this.parseExpr()
      const where = this.acceptKeyword('WHERE') ? this.parseExpr() : undefined
      const project = this.acceptPunct('|') ? this.parseExpr() : undefined
      this.expectPunct(']')
      return { kind: 'listComp', variable, source, where, project, start, end: this.lastEnd() }
    }
    // [(a)-->(b) WHERE p | e] or [p = (a)-->(b) | e]
    if (this.isPunct('(') || (this.isName() && this.isPunct('=', 1) && this.isPunct('(', 2))) {
      const mark = this.pos
      const pattern = this.tryPattern()
      if (
        pattern !== undefined &&
        pattern.rels.length > 0 &&
        (this.isKeyword('WHERE') || this.isPunct('|'))
      ) {
        const where = this.acceptKeyword('WHERE') ? this.parseExpr() : undefined
        this.expectPunct('|')
        const project = this.parseExpr()
        this.expectPunct(']')
        return { kind: 'patternComp', pattern, where, project, start, end: this.lastEnd() }
      }
      this.pos = mark
    }
    const items: Expr[] = []
    if (!this.isPunct(']')) {
      do items.push(this.parseExpr())
      while (this.acceptPunct(','))
    }
    this.expectPunct(']')
    return { kind: 'list', items, start, end: this.lastEnd() }
  }

  protected parseMapLiteral(): Expr & { kind: 'map' } {
    const start = this.expectPunct('{').start
    const entries: [string, Expr][] = []
    if (!this.isPunct('}')) {
      do {
        const key = this.expectName('a map key')
        this.expectPunct(':')
        entries.push([key, this.parseExpr()])
      } while (this.acceptPunct(','))
    }
    this.expectPunct('}')
    return { kind: 'map', entries, start, end: this.lastEnd() }
  }

  private parseMapProjection(variable: string, start: number): Expr {
    this.expectPunct('{')
    const items: MapProjectionItem[] = []
    if (!this.isPunct('}')) {
      do {
        if (this.acceptPunct('.')) {
          if (this.acceptPunct('*')) items.push({ kind: 'all' })
          else items.push({ kind: 'property', key: this.expectName('a property key') })
        } else {
          const key = this.expectName('a map key')
          if (this.acceptPunct(':')) items.push({ kind: 'entry', key, value: this.parseExpr() })
          else items.push({ kind: 'variable', name: key })
        }
      } while (this.acceptPunct(','))
    }
    this.expectPunct('}')
    return { kind: 'mapProjection', variable, items, start, end: this.lastEnd() }
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

  /** Patterns are parsed by the subclass (pattern-parser.ts); expressions need them for pattern predicates. */
  abstract parsePatternPart(): PatternPart

  /** Label expressions (`A|B`, `!A`, `%`), parsed by the pattern parser. */
  protected abstract parseLabels(inExpression: boolean): {
    labels: string[]
    labelExpr: LabelExpr | undefined
  }

  /** The body of `EXISTS { … }`/`COUNT { … }`/`COLLECT { … }`/`CALL { … }`, parsed by the query parser. */
  protected abstract parseSubqueryBody(): Query
}
