import type {
  Clause,
  Expr,
  PatternPart,
  Projection,
  ProjectionItem,
  Query,
  RemoveItem,
  SetItem,
  SingleQuery,
  SortItem,
} from './ast.js'
import { PatternParser } from './pattern-parser.js'

export interface ParseOptions {
  /** Maximum expression nesting; deeper input is a QUERY_BUDGET_EXCEEDED error. */
  maxExpressionDepth: number
}

const CLAUSE_STARTS = new Set([
  'MATCH',
  'OPTIONAL',
  'UNWIND',
  'WITH',
  'RETURN',
  'CREATE',
  'MERGE',
  'SET',
  'REMOVE',
  'DELETE',
  'DETACH',
  'UNION',
])

/** Features outside the subset, reported with UNSUPPORTED_CYPHER_FEATURE at their position. */
const UNSUPPORTED: Record<string, string> = {
  LOAD: 'LOAD CSV',
  CALL: 'CALL (procedures and subqueries)',
  FOREACH: 'FOREACH',
  USING: 'USING (hints and PERIODIC COMMIT)',
  DROP: 'DROP (schema commands)',
  START: 'START',
  USE: 'USE',
  SHOW: 'SHOW',
  GRANT: 'GRANT',
  REVOKE: 'REVOKE',
  DENY: 'DENY',
  ALTER: 'ALTER',
  TERMINATE: 'TERMINATE',
}

export function parseQuery(text: string, options: ParseOptions): Query {
  return new QueryParser(text, options.maxExpressionDepth).parse()
}

class QueryParser extends PatternParser {
  parse(): Query {
    const parts: SingleQuery[] = [this.parseSingle()]
    const unionAll: boolean[] = []
    while (this.acceptKeyword('UNION')) {
      unionAll.push(this.acceptKeyword('ALL'))
      parts.push(this.parseSingle())
    }
    this.acceptPunct(';')
    if (this.peek().kind !== 'eof') throw this.unexpected('a clause')
    return { parts, unionAll }
  }

  private parseSingle(): SingleQuery {
    const start = this.peek().start
    const clauses: Clause[] = []
    while (this.peek().kind !== 'eof' && !this.isKeyword('UNION') && !this.isPunct(';')) {
      clauses.push(this.parseClause())
    }
    if (clauses.length === 0) throw this.unexpected('a clause')
    return { clauses, start, end: this.lastEnd() }
  }

  private parseClause(): Clause {
    const token = this.peek()
    const start = token.start
    const word = token.kind === 'ident' ? token.text.toUpperCase() : ''
    if (word === 'CREATE' && (this.isKeyword('INDEX', 1) || this.isKeyword('CONSTRAINT', 1))) {
      throw this.errorAt('UNSUPPORTED_CYPHER_FEATURE', 'schema commands are not supported', start)
    }
    const unsupported = UNSUPPORTED[word]
    if (unsupported !== undefined) {
      throw this.errorAt('UNSUPPORTED_CYPHER_FEATURE', `${unsupported} is not supported`, start)
    }
    switch (word) {
      case 'MATCH':
      case 'OPTIONAL': {
        const optional = this.acceptKeyword('OPTIONAL')
        this.expectKeyword('MATCH')
        const pattern = this.parsePattern()
        if (this.isKeyword('USING'))
          throw this.errorAt('UNSUPPORTED_CYPHER_FEATURE', 'USING hints are not supported', this.peek().start)
        const where = this.acceptKeyword('WHERE') ? this.parseExpr() : undefined
        return { kind: 'match', optional, pattern, where, start, end: this.lastEnd() }
      }
      case 'UNWIND': {
        this.next()
        const expr = this.parseExpr()
        this.expectKeyword('AS')
        const variable = this.expectName('a variable')
        return { kind: 'unwind', expr, variable, start, end: this.lastEnd() }
      }
      case 'WITH': {
        this.next()
        const projection = this.parseProjection()
        const where = this.acceptKeyword('WHERE') ? this.parseExpr() : undefined
        return { kind: 'with', projection, where, start, end: this.lastEnd() }
      }
      case 'RETURN':
        this.next()
        return { kind: 'return', projection: this.parseProjection(), start, end: this.lastEnd() }
      case 'CREATE':
        this.next()
        return { kind: 'create', pattern: this.parsePattern(), start, end: this.lastEnd() }
      case 'MERGE': {
        this.next()
        const part = this.parsePatternPart()
        const onCreate: SetItem[] = []
        const onMatch: SetItem[] = []
        while (this.isKeyword('ON')) {
          this.next()
          let target = onCreate
          if (!this.acceptKeyword('CREATE')) {
            this.expectKeyword('MATCH')
            target = onMatch
          }
          this.expectKeyword('SET')
          target.push(...this.parseSetItems())
        }
        return { kind: 'merge', part, onCreate, onMatch, start, end: this.lastEnd() }
      }
      case 'SET':
        this.next()
        return { kind: 'set', items: this.parseSetItems(), start, end: this.lastEnd() }
      case 'REMOVE':
        this.next()
        return { kind: 'remove', items: this.parseRemoveItems(), start, end: this.lastEnd() }
      case 'DELETE':
      case 'DETACH': {
        const detach = this.acceptKeyword('DETACH')
        this.expectKeyword('DELETE')
        const exprs: Expr[] = []
        do exprs.push(this.parseExpr())
        while (this.acceptPunct(','))
        return { kind: 'delete', detach, exprs, start, end: this.lastEnd() }
      }
      default:
        throw this.unexpected('a clause (MATCH, WITH, RETURN, CREATE, ...)')
    }
  }

  private parsePattern(): PatternPart[] {
    const parts: PatternPart[] = []
    do parts.push(this.parsePatternPart())
    while (this.acceptPunct(','))
    return parts
  }

  private parseProjection(): Projection {
    const distinct = this.acceptKeyword('DISTINCT')
    let star = false
    const items: ProjectionItem[] = []
    if (this.acceptPunct('*')) {
      star = true
      if (!this.acceptPunct(',')) return this.parseProjectionTail(distinct, star, items)
    }
    do {
      const start = this.peek().start
      const expr = this.parseExpr()
      const text = this.text.slice(start, this.lastEnd())
      const alias = this.acceptKeyword('AS') ? this.expectName('an alias') : undefined
      items.push({ expr, alias, text, start, end: this.lastEnd() })
    } while (this.acceptPunct(','))
    return this.parseProjectionTail(distinct, star, items)
  }

  private parseProjectionTail(distinct: boolean, star: boolean, items: ProjectionItem[]): Projection {
    const orderBy: SortItem[] = []
    if (this.acceptKeyword('ORDER')) {
      this.expectKeyword('BY')
      do {
        const expr = this.parseExpr()
        let descending = false
        if (this.acceptKeyword('DESC') || this.acceptKeyword('DESCENDING')) descending = true
        else if (!this.acceptKeyword('ASC')) this.acceptKeyword('ASCENDING')
        orderBy.push({ expr, descending })
      } while (this.acceptPunct(','))
    }
    const skip = this.acceptKeyword('SKIP') ? this.parseExpr() : undefined
    const limit = this.acceptKeyword('LIMIT') ? this.parseExpr() : undefined
    return { distinct, star, items, orderBy, skip, limit }
  }

  private parseSetItems(): SetItem[] {
    const items: SetItem[] = []
    do {
      const start = this.peek().start
      if (this.isName() && (this.isPunct('=', 1) || this.isPunct('+=', 1))) {
        const variable = this.expectName()
        const merge = this.next().text === '+='
        const value = this.parseExpr()
        items.push({ kind: 'setAll', variable, value, merge, start, end: this.lastEnd() })
      } else if (this.isName() && this.isPunct(':', 1)) {
        const variable = this.expectName()
        const labels: string[] = []
        while (this.acceptPunct(':')) labels.push(this.expectName('a label'))
        items.push({ kind: 'setLabels', variable, labels, start, end: this.lastEnd() })
      } else {
        const target = this.parsePropertyTarget()
        this.expectPunct('=')
        const value = this.parseExpr()
        items.push({ kind: 'setProperty', target, value, start, end: this.lastEnd() })
      }
    } while (this.acceptPunct(','))
    return items
  }

  private parseRemoveItems(): RemoveItem[] {
    const items: RemoveItem[] = []
    do {
      const start = this.peek().start
      if (this.isName() && this.isPunct(':', 1)) {
        const variable = this.expectName()
        const labels: string[] = []
        while (this.acceptPunct(':')) labels.push(this.expectName('a label'))
        items.push({ kind: 'removeLabels', variable, labels, start, end: this.lastEnd() })
      } else
        items.push({ kind: 'removeProperty', target: this.parsePropertyTarget(), start, end: this.lastEnd() })
    } while (this.acceptPunct(','))
    return items
  }

  /** `n.key` or `(expr).key`: the target of SET/REMOVE of one property. */
  private parsePropertyTarget(): Expr & { kind: 'prop' } {
    const start = this.peek().start
    let target: Expr
    if (this.acceptPunct('(')) {
      target = this.parseExpr()
      this.expectPunct(')')
    } else target = { kind: 'var', name: this.expectName('a variable'), start, end: this.lastEnd() }
    let expr: Expr = target
    while (this.acceptPunct('.')) {
      expr = {
        kind: 'prop',
        target: expr,
        key: this.expectName('a property key'),
        start,
        end: this.lastEnd(),
      }
    }
    if (expr.kind !== 'prop') throw this.unexpected("'.' and a property key")
    return expr
  }

  /** True when the next token starts a clause; used to give better messages. */
  protected atClauseStart(): boolean {
    const token = this.peek()
    return token.kind === 'ident' && CLAUSE_STARTS.has(token.text.toUpperCase())
  }
}
