import type { Clause, Expr, PatternPart, Query, SetItem, SingleQuery } from './ast.js'
import { CallParser } from './call-parser.js'

export interface ParseOptions {
  /** Maximum expression nesting; deeper input is a QUERY_BUDGET_EXCEEDED error. */
  maxExpressionDepth: number
}

/** Features outside the subset, reported with UNSUPPORTED_CYPHER_FEATURE at their position. */
const UNSUPPORTED: Record<string, string> = {
  USING: 'USING (hints and PERIODIC COMMIT)',
  DROP: 'DROP (of a database or user)',
  START: 'START',
  GRANT: 'GRANT',
  REVOKE: 'REVOKE',
  DENY: 'DENY',
  ALTER: 'ALTER',
  TERMINATE: 'TERMINATE',
}

export function parseQuery(text: string, options: ParseOptions): Query {
  return new QueryParser(text, options.maxExpressionDepth).parse()
}

class QueryParser extends CallParser {
  parse(): Query {
    const prefix = this.parsePrefix()
    const query = this.parseUnion()
    this.acceptPunct(';')
    if (this.peek().kind !== 'eof') throw this.unexpected('a clause')
    return { ...query, ...prefix }
  }

  /** `CYPHER 5 [options]`, `EXPLAIN`/`PROFILE` and `USE name`, in the order Neo4j accepts them. */
  private parsePrefix(): Pick<Query, 'explain' | 'use'> {
    const out: Pick<Query, 'explain' | 'use'> = {}
    if (this.acceptKeyword('CYPHER')) {
      if (this.peek().kind === 'int' || this.peek().kind === 'float') {
        const version = this.next().text
        if (version !== '5' && version !== '25')
          throw this.errorAt(
            'UNSUPPORTED_CYPHER_FEATURE',
            `Cypher version ${version} is not supported`,
            this.lastEnd() - version.length,
          )
      }
      // Planner options (`runtime=slotted`, …) are hints: accepted and ignored.
      while (this.isName() && this.isPunct('=', 1)) {
        this.pos += 2
        this.next()
      }
    }
    if (this.acceptKeyword('EXPLAIN')) out.explain = 'explain'
    else if (this.acceptKeyword('PROFILE')) out.explain = 'profile'
    if (this.acceptKeyword('USE')) out.use = this.parseGraphName()
    return out
  }

  private parseUnion(): Query {
    const parts: SingleQuery[] = [this.parseSingle()]
    const unionAll: boolean[] = []
    while (this.acceptKeyword('UNION')) {
      // `UNION DISTINCT` (GQL) is the plain UNION spelled out.
      const all = this.acceptKeyword('ALL')
      if (!all) this.acceptKeyword('DISTINCT')
      unionAll.push(all)
      parts.push(this.parseSingle())
    }
    return { parts, unionAll }
  }

  /** A subquery body: a full query, or for EXISTS/COUNT/COLLECT a bare pattern with an optional WHERE. */
  protected parseSubqueryBody(): Query {
    if (this.isPunct('(') || (this.isName() && this.isPunct('=', 1))) {
      const start = this.peek().start
      const pattern = this.parsePattern()
      const where = this.acceptKeyword('WHERE') ? this.parseExpr() : undefined
      const match: Clause = { kind: 'match', optional: false, pattern, where, start, end: this.lastEnd() }
      return { parts: [{ clauses: [match], start, end: this.lastEnd() }], unionAll: [] }
    }
    if (this.isKeyword('USE')) {
      this.next()
      this.parseGraphName()
    }
    return this.parseUnion()
  }

  private parseSingle(): SingleQuery {
    const start = this.peek().start
    const clauses: Clause[] = []
    while (
      this.peek().kind !== 'eof' &&
      !this.isKeyword('UNION') &&
      !this.isPunct(';') &&
      !this.isPunct('}') &&
      !this.isPunct(')')
    ) {
      clauses.push(this.parseClause())
    }
    if (clauses.length === 0) throw this.unexpected('a clause')
    return { clauses, start, end: this.lastEnd() }
  }

  /** `LOAD CSV [WITH HEADERS] FROM url AS variable [FIELDTERMINATOR 'c']`: the terminator is one character. */
  private parseLoadCsv(): Clause {
    const start = this.next().start
    this.expectKeyword('CSV')
    let headers = false
    if (this.acceptKeyword('WITH')) {
      this.expectKeyword('HEADERS')
      headers = true
    }
    this.expectKeyword('FROM')
    const url = this.parseExpr()
    this.expectKeyword('AS')
    const variable = this.expectName('a variable')
    let terminator: string | undefined
    if (this.acceptKeyword('FIELDTERMINATOR')) {
      const token = this.peek()
      if (token.kind !== 'string') throw this.unexpected('a string (the field terminator)')
      this.next()
      if ([...token.text].length !== 1 || token.text === '"' || token.text === '\n' || token.text === '\r')
        throw this.errorAt(
          'INVALID_ARGUMENT_VALUE',
          `FIELDTERMINATOR must be one character other than a quote or line break, not '${token.text}'`,
          token.start,
        )
      terminator = token.text
    }
    return { kind: 'loadCsv', headers, url, variable, terminator, start, end: this.lastEnd() }
  }

  private parseClause(): Clause {
    const token = this.peek()
    const start = token.start
    const word = token.kind === 'ident' ? token.text.toUpperCase() : ''
    if (word === 'CREATE' || word === 'DROP') {
      const schema = this.parseSchemaCommand()
      if (schema !== undefined) return schema
    }
    if (word === 'USING' && this.isKeyword('PERIODIC', 1))
      throw this.errorAt(
        'CYPHER_SYNTAX_ERROR',
        'USING PERIODIC COMMIT is Neo4j 4 syntax and no longer supported: use CALL { … } IN TRANSACTIONS OF n ROWS',
        start,
      )
    const unsupported = UNSUPPORTED[word]
    if (unsupported !== undefined) {
      throw this.errorAt('UNSUPPORTED_CYPHER_FEATURE', `${unsupported} is not supported`, start)
    }
    switch (word) {
      case 'CALL':
        return this.parseCall(false)
      case 'SHOW':
        return this.parseShow()
      case 'FOREACH':
        return this.parseForeach()
      case 'FINISH':
        this.next()
        return { kind: 'finish', start, end: this.lastEnd() }
      case 'ORDER':
      case 'SKIP':
      case 'OFFSET':
      case 'LIMIT': {
        // Neo4j 5 standalone ORDER BY / SKIP / LIMIT: `WITH *` with that tail.
        const projection = this.parseProjectionTail(false, true, [])
        return { kind: 'with', projection, where: undefined, start, end: this.lastEnd() }
      }
      case 'MATCH':
      case 'OPTIONAL': {
        if (this.isKeyword('CALL', 1)) {
          this.next()
          return this.parseCall(true)
        }
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
      case 'LOAD':
        return this.parseLoadCsv()
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
      case 'DETACH':
      case 'NODETACH': {
        // `NODETACH DELETE` (GQL) is DELETE, said explicitly.
        const detach = this.acceptKeyword('DETACH')
        if (!detach) this.acceptKeyword('NODETACH')
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

  /** `FOREACH (x IN list | clause …)`: updating clauses run once per element. */
  private parseForeach(): Clause {
    const start = this.peek().start
    this.expectKeyword('FOREACH')
    this.expectPunct('(')
    const variable = this.expectName('a variable')
    this.expectKeyword('IN')
    const list = this.parseExpr()
    this.expectPunct('|')
    const body: Clause[] = []
    while (!this.isPunct(')')) body.push(this.parseClause())
    this.expectPunct(')')
    if (body.length === 0) throw this.unexpected('an updating clause')
    return { kind: 'foreach', variable, list, body, start, end: this.lastEnd() }
  }

  protected parsePattern(): PatternPart[] {
    const parts: PatternPart[] = []
    do parts.push(this.parsePatternPart())
    while (this.acceptPunct(','))
    return parts
  }
}
