import type { Expr, MapProjectionItem, PatternPart, Query } from './ast.js'
import { CypherError } from './errors.js'
import { ExpressionParser } from './expression-parser.js'

const QUANTIFIERS = new Set(['ALL', 'ANY', 'NONE', 'SINGLE'])

/**
 * The atoms of expressions: literals, parameters, variables, function calls, CASE, lists, maps and
 * comprehensions. Patterns appear inside expressions as predicates and comprehensions.
 */
export abstract class AtomParser extends ExpressionParser {
  protected parseAtom(): Expr {
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

  /** Patterns are parsed by the subclass (pattern-parser.ts); expressions need them for pattern predicates. */
  abstract parsePatternPart(): PatternPart

  /** The body of `EXISTS { … }`/`COUNT { … }`/`COLLECT { … }`/`CALL { … }`, parsed by the query parser. */
  protected abstract parseSubqueryBody(): Query
}
