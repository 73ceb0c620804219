import type { Expr, LabelExpr, NodePattern, PatternPart, RelPattern } from './ast.js'
import { AtomParser } from './atom-parser.js'

/** Path patterns: `(a:Label {k: v})-[r:TYPE*1..3]->(b)`, with the expressions their property maps hold. */
export abstract class PatternParser extends AtomParser {
  parsePatternPart(): PatternPart {
    const start = this.peek().start
    let variable: string | undefined
    if (this.isName() && this.isPunct('=', 1)) {
      variable = this.expectName()
      this.next()
    }
    const shortest = this.parseShortestPrefix()
    if (shortest !== undefined && (this.isKeyword('SHORTESTPATH') || this.isKeyword('ALLSHORTESTPATHS')))
      throw this.unexpected("'('")
    const fn = this.isKeyword('SHORTESTPATH') ? 1 : this.isKeyword('ALLSHORTESTPATHS') ? 2 : 0
    if (fn !== 0) {
      this.next()
      this.expectPunct('(')
      const inner = this.parsePathBody(variable, start)
      this.expectPunct(')')
      if (inner.rels.length !== 1)
        throw this.errorAt(
          'CYPHER_SYNTAX_ERROR',
          'shortestPath needs a pattern of exactly one relationship',
          inner.start,
        )
      return { ...inner, shortest: { all: fn === 2, k: 1 }, end: this.lastEnd() }
    }
    const part = this.parenthesisedPath()
      ? this.parseParenthesisedPath(variable, start)
      : this.parsePathBody(variable, start)
    if (shortest !== undefined) {
      if (part.rels.length !== 1)
        throw this.errorAt(
          'CYPHER_SYNTAX_ERROR',
          'SHORTEST needs a pattern of exactly one relationship',
          start,
        )
      // `ANY k` and `SHORTEST k` both give k paths, shortest first (Neo4j: ANY is a SHORTEST without order).
      return { ...part, shortest }
    }
    return part
  }

  /**
   * `SHORTEST k`, `ALL SHORTEST`, `ANY [k]`, `SHORTEST k GROUPS` (every path of the k shortest lengths), with an
   * optional `PATH[S]` (Neo4j 5 path selectors).
   */
  private parseShortestPrefix(): PatternPart['shortest'] {
    let out: PatternPart['shortest']
    if (this.isKeyword('ALL') && this.isKeyword('SHORTEST', 1)) {
      this.pos += 2
      out = { all: true, k: 1 }
    } else if (this.isKeyword('ANY') && this.isKeyword('SHORTEST', 1)) {
      // `ANY SHORTEST` is `SHORTEST 1`.
      this.pos += 2
      out = { all: false, k: 1 }
    } else if (this.isKeyword('SHORTEST') || this.isKeyword('ANY')) {
      this.next()
      let k = 1
      if (this.peek().kind === 'int') k = Number(this.next().text)
      out = { all: false, k }
      // `SHORTEST 1 GROUPS` is ALL SHORTEST; more groups take every path of each of the k shortest lengths.
      if (this.acceptKeyword('GROUPS') || this.acceptKeyword('GROUP'))
        out = k === 1 ? { all: true, k } : { all: true, k, groups: true }
    }
    if (out !== undefined && !this.acceptKeyword('PATHS')) this.acceptKeyword('PATH')
    return out
  }

  private parsePathBody(variable: string | undefined, start: number): PatternPart {
    // A path may begin or end with a quantified group: its outer node there is anonymous.
    const anonymous = (): NodePattern => {
      const at = this.peek().start
      return { kind: 'node', variable: undefined, labels: [], props: undefined, start: at, end: at }
    }
    const startsWithGroup = this.isPunct('(') && this.isPunct('(', 1) && this.groupAhead()
    const nodes: NodePattern[] = [startsWithGroup ? anonymous() : this.parseNodePattern()]
    const rels: RelPattern[] = []
    for (;;) {
      if (this.isPunct('-') || (this.isPunct('<') && this.isPunct('-', 1))) {
        rels.push(this.parseRelPattern())
        nodes.push(this.parseNodePattern())
      } else if (this.isPunct('(') && this.isPunct('(', 1)) {
        rels.push(this.parseQuantifiedHop())
        nodes.push(this.isPunct('(') ? this.parseNodePattern() : anonymous())
      } else break
    }
    return { variable, nodes, rels, start, end: this.lastEnd() }
  }

  /**
   * `( [p =] path [WHERE …] )`: a parenthesised path pattern, its WHERE a condition on each path it matches
   * (under a path selector, applied before the shortest are chosen).
   */
  private parseParenthesisedPath(outer: string | undefined, start: number): PatternPart {
    this.expectPunct('(')
    let variable = outer
    if (this.isName() && this.isPunct('=', 1)) {
      if (outer !== undefined)
        throw this.errorAt('CYPHER_SYNTAX_ERROR', 'a path pattern takes one path variable', this.peek().start)
      variable = this.expectName()
      this.next()
    }
    const part = this.parsePathBody(variable, start)
    const where = this.acceptKeyword('WHERE') ? this.parseExpr() : undefined
    this.expectPunct(')')
    return { ...part, ...(where ? { where } : {}), end: this.lastEnd() }
  }

  /** Whether `(` opens a parenthesised path pattern: `(p = …`, or `((` that is no quantified group. */
  private parenthesisedPath(): boolean {
    if (!this.isPunct('(')) return false
    if (this.isName(1) && this.isPunct('=', 2)) return true
    return this.isPunct('(', 1) && !this.groupAhead()
  }

  /**
   * Whether `((` opens a quantified group: its closing parenthesis is followed by a quantifier. (A parenthesised
   * path pattern `((a)--(b) WHERE …)` is not one.)
   */
  private groupAhead(): boolean {
    let depth = 0
    for (let i = 0; ; i++) {
      const token = this.peek(i)
      if (token.kind === 'eof') return false
      if (token.kind === 'punct' && (token.text === '(' || token.text === '[' || token.text === '{')) depth++
      else if (token.kind === 'punct' && (token.text === ')' || token.text === ']' || token.text === '}')) {
        depth--
        if (depth === 0) {
          const after = this.peek(i + 1)
          return after.kind === 'punct' && (after.text === '+' || after.text === '*' || after.text === '{')
        }
      }
    }
  }

  private parseNodePattern(): NodePattern {
    const start = this.expectPunct('(').start
    // A quantified group `((a)-[:R]->(b)){1,3}` holding a single hop is that hop with a quantifier.
    if (this.isPunct('(')) return this.parseQuantifiedGroup(start)
    let variable: string | undefined
    if (this.isName() && !this.isKeyword('WHERE')) variable = this.expectName()
    const dynamicLabels: Expr[] = []
    const { labels, labelExpr } = this.parseLabels(false, dynamicLabels)
    let props: Expr | undefined
    if (this.isPunct('{')) props = this.parseMapLiteral()
    else if (this.peek().kind === 'param') {
      const token = this.next()
      props = { kind: 'param', name: token.text, start: token.start, end: token.end }
    }
    const where = this.acceptKeyword('WHERE') ? this.parseExpr() : undefined
    this.expectPunct(')')
    return {
      kind: 'node',
      variable,
      labels,
      labelExpr,
      props,
      where,
      ...(dynamicLabels.length > 0 ? { dynamicLabels } : {}),
      start,
      end: this.lastEnd(),
    }
  }

  /**
   * `(a) ((x:A)-[r:R]->(y) WHERE …){1,3} (b)`: a quantified group of one hop is that hop with a quantifier whose
   * inner nodes (their labels, properties and predicates) and WHERE hold at every hop; its variables are bound
   * to lists after the match (group variables).
   */
  private parseQuantifiedHop(): RelPattern {
    const start = this.expectPunct('(').start
    const first = this.parseNodePattern()
    const rel = this.parseRelPattern()
    const second = this.parseNodePattern()
    const chain = { nodes: [first, second], rels: [rel] }
    while (this.isPunct('-') || (this.isPunct('<') && this.isPunct('-', 1))) {
      chain.rels.push(this.parseRelPattern())
      chain.nodes.push(this.parseNodePattern())
    }
    const where = this.acceptKeyword('WHERE') ? this.parseExpr() : undefined
    this.expectPunct(')')
    const quantifier = this.parsePathQuantifier(true)
    if (quantifier === undefined) throw this.unexpected('a quantifier ({m,n}, + or *)')
    if (chain.rels.length > 1) return this.longGroup(chain, where, quantifier, start)
    for (const node of [first, second]) {
      if (node.dynamicLabels)
        throw this.errorAt(
          'UNSUPPORTED_CYPHER_FEATURE',
          'dynamic labels on the inner nodes of a quantified path group are not supported',
          node.start,
        )
    }
    if (rel.varLength !== undefined)
      throw this.errorAt('CYPHER_SYNTAX_ERROR', 'a relationship cannot have two quantifiers', rel.start)
    const hopWhere = [first.where, rel.where, second.where, where].filter((e) => e !== undefined)
    const { where: _relWhere, ...hop } = rel
    return {
      ...hop,
      varLength: quantifier,
      hopNodes: [
        { ...first, where: undefined },
        { ...second, where: undefined },
      ],
      ...(hopWhere.length > 0 ? { hopWhere: andAll(hopWhere) } : {}),
      start,
      end: this.lastEnd(),
    }
  }

  /** A quantified group of several hops: its chain, its predicates gathered into one WHERE per repetition. */
  private longGroup(
    chain: { nodes: NodePattern[]; rels: RelPattern[] },
    where: Expr | undefined,
    quantifier: NonNullable<RelPattern['varLength']>,
    start: number,
  ): RelPattern {
    for (const element of [...chain.nodes, ...chain.rels]) {
      if (element.kind === 'rel' && element.varLength !== undefined)
        throw this.errorAt(
          'CYPHER_SYNTAX_ERROR',
          'quantifiers cannot nest in a quantified group',
          element.start,
        )
      if (element.kind === 'node' && element.dynamicLabels)
        throw this.errorAt(
          'UNSUPPORTED_CYPHER_FEATURE',
          'dynamic labels on the inner nodes of a quantified path group are not supported',
          element.start,
        )
    }
    const predicates = [...chain.nodes, ...chain.rels].map((e) => e.where).filter((e) => e !== undefined)
    if (where !== undefined) predicates.push(where)
    return {
      kind: 'rel',
      variable: undefined,
      types: [],
      direction: 'out',
      props: undefined,
      varLength: quantifier,
      group: {
        nodes: chain.nodes.map((node) => ({ ...node, where: undefined })),
        rels: chain.rels.map((rel) => ({ ...rel, where: undefined })),
      },
      ...(predicates.length > 0 ? { hopWhere: andAll(predicates) } : {}),
      start,
      end: this.lastEnd(),
    }
  }

  /** Quantified path groups are recognised only in the single-hop form; anything else is refused clearly. */
  private parseQuantifiedGroup(start: number): NodePattern {
    // A syntax error (not a refusal), so a parenthesised expression `((a.x))` is still tried as one.
    throw this.errorAt(
      'CYPHER_SYNTAX_ERROR',
      'quantified path groups are not supported; write the quantifier on the relationship: -[:R]->{1,3}',
      start,
    )
  }

  /** `:A:B` and `:A&B` (a conjunction, kept as a list), or a label expression with `|`, `!`, `%`. */
  protected parseLabels(
    inExpression = false,
    dynamic?: Expr[],
  ): { labels: string[]; labelExpr: LabelExpr | undefined } {
    if (!this.isPunct(':')) return { labels: [], labelExpr: undefined }
    const parts: LabelExpr[] = []
    while (this.acceptPunct(':')) {
      if (dynamic !== undefined && this.isPunct('$')) dynamic.push(this.parseDynamicName())
      else parts.push(this.parseLabelOr(inExpression))
    }
    if (parts.length === 0) return { labels: [], labelExpr: undefined }
    const expr = parts.reduce((left, right) => ({ kind: 'and', left, right }) as LabelExpr)
    const conj = conjunctionOf(expr)
    return conj === undefined ? { labels: [], labelExpr: expr } : { labels: conj, labelExpr: undefined }
  }

  /** `$(expr)` after `:`: a label computed per row. */
  protected parseDynamicName(): Expr {
    this.expectPunct('$')
    this.expectPunct('(')
    const expr = this.parseExpr()
    this.expectPunct(')')
    return expr
  }

  /** In an expression, `|` may instead end a comprehension's predicate (see `labelFollows`). */
  protected parseLabelOr(inExpression = false): LabelExpr {
    let left = this.parseLabelAnd()
    while (this.isPunct('|') && (!inExpression || this.labelFollows(1))) {
      this.next()
      this.acceptPunct(':')
      left = { kind: 'or', left, right: this.parseLabelAnd() }
    }
    return left
  }

  private parseLabelAnd(): LabelExpr {
    let left = this.parseLabelNot()
    while (this.acceptPunct('&')) left = { kind: 'and', left, right: this.parseLabelNot() }
    return left
  }

  private parseLabelNot(): LabelExpr {
    if (this.acceptPunct('!')) return { kind: 'not', operand: this.parseLabelNot() }
    if (this.acceptPunct('%')) return { kind: 'any' }
    if (this.acceptPunct('(')) {
      const inner = this.parseLabelOr()
      this.expectPunct(')')
      return inner
    }
    return { kind: 'label', name: this.expectName('a label') }
  }

  /**
   * After `|`: a label (not the projection of a comprehension `[x IN l WHERE x:A | x.name]`, whose `|` is
   * followed by an expression).
   */
  private labelFollows(ahead: number): boolean {
    if (this.isPunct('!', ahead) || this.isPunct('%', ahead) || this.isPunct(':', ahead)) return true
    if (!this.isName(ahead)) return false
    const after = this.peek(ahead + 1)
    if (after.kind !== 'punct') return true
    return !['.', '(', '[', '{', '+', '-', '*', '/'].includes(after.text)
  }

  private parseRelPattern(): RelPattern {
    const start = this.peek().start
    const left = this.acceptPunct('<')
    this.expectPunct('-')
    let variable: string | undefined
    let types: string[] = []
    let typeExpr: LabelExpr | undefined
    let props: Expr | undefined
    let where: Expr | undefined
    let varLength: RelPattern['varLength']
    if (this.acceptPunct('[')) {
      if (this.isName() && !this.isKeyword('WHERE')) variable = this.expectName()
      if (this.acceptPunct(':')) {
        const expr = this.parseLabelOr()
        const alternatives = disjunctionOf(expr)
        if (alternatives === undefined) typeExpr = expr
        else types = alternatives
      }
      if (this.acceptPunct('*')) varLength = this.parseRange()
      if (this.isPunct('{')) props = this.parseMapLiteral()
      else if (this.peek().kind === 'param') {
        const token = this.next()
        props = { kind: 'param', name: token.text, start: token.start, end: token.end }
      }
      if (this.acceptKeyword('WHERE')) where = this.parseExpr()
      this.expectPunct(']')
      this.expectPunct('-')
    } else this.expectPunct('-')
    const right = this.acceptPunct('>')
    // Quantifiers of Neo4j 5 on a single relationship: `+`, `*`, `{n}`, `{n,m}`, `{,m}`, `{n,}`.
    const quantifier = this.parsePathQuantifier()
    if (quantifier !== undefined) {
      if (varLength !== undefined)
        throw this.errorAt('CYPHER_SYNTAX_ERROR', 'a relationship cannot have two quantifiers', start)
      varLength = quantifier
    }
    // `<-->` is the same as `--`: either direction.
    const direction = left && right ? 'both' : left ? 'in' : right ? 'out' : 'both'
    return {
      kind: 'rel',
      variable,
      types,
      typeExpr,
      direction,
      props,
      where,
      varLength,
      start,
      end: this.lastEnd(),
    }
  }

  /** A quantifier; after a group's `)` a `+` or `*` is one whatever follows (a path may end with a group). */
  private parsePathQuantifier(afterGroup = false): RelPattern['varLength'] {
    if (this.isPunct('+') && (afterGroup || this.isPunct('(', 1))) {
      this.next()
      return { min: 1, max: undefined }
    }
    if (this.isPunct('*') && (afterGroup || this.isPunct('(', 1))) {
      this.next()
      return { min: 0, max: undefined }
    }
    if (!this.isPunct('{')) return undefined
    const bound = (ahead: number): boolean => this.peek(ahead).kind === 'int'
    // `{1,3}`, `{2}`, `{,3}`, `{1,}`: nodes open with `(`, so after a relationship `{` is a quantifier.
    if (!(bound(1) || this.isPunct(',', 1))) return undefined
    this.next()
    const min = this.peek().kind === 'int' ? Number(this.next().text) : 0
    let max: number | undefined = min
    if (this.acceptPunct(',')) max = this.peek().kind === 'int' ? Number(this.next().text) : undefined
    this.expectPunct('}')
    return { min, max }
  }

  private parseRange(): { min: number | undefined; max: number | undefined } {
    const bound = (): number | undefined => {
      const token = this.peek()
      if (token.kind !== 'int') return undefined
      this.next()
      return Number(token.text)
    }
    const min = bound()
    if (this.acceptPunct('..')) return { min, max: bound() }
    return { min, max: min }
  }
}

/** The label names of a pure conjunction (`A&B`, `:A:B`), undefined otherwise. */
function conjunctionOf(expr: LabelExpr): string[] | undefined {
  if (expr.kind === 'label') return [expr.name]
  if (expr.kind !== 'and') return undefined
  const left = conjunctionOf(expr.left)
  const right = conjunctionOf(expr.right)
  return left && right ? [...left, ...right] : undefined
}

/** The type names of a pure disjunction (`R|S`), undefined otherwise. */
function disjunctionOf(expr: LabelExpr): string[] | undefined {
  if (expr.kind === 'label') return [expr.name]
  if (expr.kind !== 'or') return undefined
  const left = disjunctionOf(expr.left)
  const right = disjunctionOf(expr.right)
  return left && right ? [...left, ...right] : undefined
}

/** The conjunction of predicates (at least one). */
function andAll(exprs: Expr[]): Expr {
  return exprs.reduce((left, right) => ({
    kind: 'binary',
    op: 'AND',
    left,
    right,
    start: left.start,
    end: right.end,
  }))
}
