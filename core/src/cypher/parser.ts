import type {
  Clause,
  Expr,
  PatternPart,
  Projection,
  ProjectionItem,
  PropertyTarget,
  Query,
  RemoveItem,
  SetItem,
  SingleQuery,
  SortItem,
  YieldItem,
} from './ast.js'
import { SchemaParser } from './schema-parser.js'

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
  'NODETACH',
  'UNION',
  'CALL',
  'FOREACH',
  'ORDER',
  'SKIP',
  'OFFSET',
  'LIMIT',
])

/** `SHOW …` commands, each answered by an internal procedure (see procedures/show.ts). */
const SHOW_COMMANDS: Record<string, string> = {
  PROCEDURES: 'show.procedures',
  FUNCTIONS: 'show.functions',
  INDEXES: 'show.indexes',
  INDEX: 'show.indexes',
  CONSTRAINTS: 'show.constraints',
  CONSTRAINT: 'show.constraints',
  DATABASES: 'show.databases',
  DATABASE: 'show.databases',
}
/** Words that may stand between SHOW and the command: `SHOW ALL INDEXES`, `SHOW BUILTIN FUNCTIONS`. */
const SHOW_QUALIFIERS = new Set([
  'ALL',
  'BUILTIN',
  'USER',
  'DEFINED',
  'RANGE',
  'FULLTEXT',
  'VECTOR',
  'LOOKUP',
  'TEXT',
  'POINT',
  'UNIQUE',
  'UNIQUENESS',
  'EXISTENCE',
  'KEY',
  'NODE',
  'RELATIONSHIP',
  'PROPERTY',
  'DEFAULT',
  'HOME',
])

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

class QueryParser extends SchemaParser {
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

  /** A graph name: `neo4j`, `` `my-db` ``, `a.b` (composite names are joined by dots). */
  private parseGraphName(): string {
    let name = this.expectName('a graph name')
    while (this.isPunct('.') && this.isName(1)) {
      this.next()
      name += `.${this.expectName()}`
    }
    return name
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

  /** `CALL { … }`, `CALL (x) { … }`, or a procedure call `CALL ns.name(args) YIELD … WHERE …`. */
  private parseCall(optional: boolean): Clause {
    const start = this.peek().start
    this.expectKeyword('CALL')
    if (this.isPunct('{') || this.isPunct('(')) {
      let scope: string[] | '*' | undefined
      if (this.acceptPunct('(')) {
        if (this.acceptPunct('*')) scope = '*'
        else {
          scope = []
          if (!this.isPunct(')')) {
            do scope.push(this.expectName('a variable'))
            while (this.acceptPunct(','))
          }
        }
        this.expectPunct(')')
      }
      this.expectPunct('{')
      const query = this.parseSubqueryBody()
      this.expectPunct('}')
      let batch: Expr | 'default' | undefined
      let onError: 'continue' | 'break' | 'fail' | undefined
      let reportStatus: string | undefined
      if (this.acceptKeyword('IN')) {
        // `IN [n] CONCURRENT TRANSACTIONS`: Neo4j leaves the order and visibility of concurrent batches open,
        // so running them one after the other is one of its allowed outcomes; n must be an integer.
        if (this.peek().kind === 'int' || this.isPunct('-')) {
          const negative = this.acceptPunct('-')
          if (this.peek().kind !== 'int') throw this.unexpected('an integer concurrency')
          this.next()
          if (negative && !this.isKeyword('CONCURRENT')) throw this.unexpected('CONCURRENT')
          this.expectKeyword('CONCURRENT')
        } else this.acceptKeyword('CONCURRENT')
        this.expectKeyword('TRANSACTIONS')
        batch = 'default'
        // `OF n ROWS`, `ON ERROR …` and `REPORT STATUS AS s`, each at most once, in any order.
        for (;;) {
          const at = this.peek().start
          const twice = (what: string) =>
            this.errorAt('CYPHER_SYNTAX_ERROR', `IN TRANSACTIONS takes ${what} once`, at)
          if (this.acceptKeyword('OF')) {
            if (batch !== 'default') throw twice('OF … ROWS')
            batch = this.parseExpr()
            if (!this.acceptKeyword('ROWS')) this.expectKeyword('ROW')
          } else if (this.acceptKeyword('ON')) {
            if (onError !== undefined) throw twice('ON ERROR')
            this.expectKeyword('ERROR')
            if (this.acceptKeyword('CONTINUE')) onError = 'continue'
            else if (this.acceptKeyword('BREAK')) onError = 'break'
            else if (this.acceptKeyword('FAIL')) onError = 'fail'
            else throw this.unexpected('CONTINUE, BREAK or FAIL')
          } else if (this.acceptKeyword('REPORT')) {
            if (reportStatus !== undefined) throw twice('REPORT STATUS')
            this.expectKeyword('STATUS')
            this.expectKeyword('AS')
            reportStatus = this.expectName('a variable')
          } else break
        }
        if (reportStatus !== undefined && (onError === undefined || onError === 'fail'))
          throw this.errorAt(
            'INVALID_CLAUSE_COMPOSITION',
            'REPORT STATUS needs ON ERROR CONTINUE or ON ERROR BREAK',
            start,
          )
      }
      return {
        kind: 'subqueryCall',
        query,
        scope,
        optional,
        batch,
        ...(onError !== undefined ? { onError } : {}),
        ...(reportStatus !== undefined ? { reportStatus } : {}),
        start,
        end: this.lastEnd(),
      }
    }
    let procedure = this.expectName('a procedure name')
    while (this.acceptPunct('.')) procedure += `.${this.expectName('a procedure name')}`
    let args: Expr[] | undefined
    if (this.acceptPunct('(')) {
      args = []
      if (!this.isPunct(')')) {
        do args.push(this.parseExpr())
        while (this.acceptPunct(','))
      }
      this.expectPunct(')')
    }
    const { yields, where } = this.parseYield()
    return {
      kind: 'call',
      procedure,
      args,
      yields,
      where,
      ...(optional ? { optional } : {}),
      start,
      end: this.lastEnd(),
    }
  }

  private parseYield(): { yields: YieldItem[] | '*' | undefined; where: Expr | undefined } {
    if (!this.acceptKeyword('YIELD')) return { yields: undefined, where: undefined }
    let yields: YieldItem[] | '*'
    if (this.acceptPunct('*')) yields = '*'
    else {
      yields = []
      do {
        const name = this.expectName('a result column')
        const alias = this.acceptKeyword('AS') ? this.expectName('a variable') : undefined
        yields.push({ name, alias })
      } while (this.acceptPunct(','))
    }
    // Neo4j's SHOW … YIELD takes ORDER BY/SKIP/LIMIT; they apply as a `WITH *` tail (handled by the caller).
    const where = this.acceptKeyword('WHERE') ? this.parseExpr() : undefined
    return { yields, where }
  }

  /** `SHOW [qualifiers] PROCEDURES|FUNCTIONS|INDEXES|CONSTRAINTS|DATABASES [YIELD …] [WHERE …]`. */
  private parseShow(): Clause {
    const start = this.peek().start
    this.expectKeyword('SHOW')
    while (
      this.isName() &&
      SHOW_QUALIFIERS.has(this.peek().text.toUpperCase()) &&
      !SHOW_COMMANDS[this.peek().text.toUpperCase()]
    )
      this.next()
    const word = this.isName() ? this.peek().text.toUpperCase() : ''
    const procedure = SHOW_COMMANDS[word]
    if (procedure === undefined)
      throw this.unexpected('PROCEDURES, FUNCTIONS, INDEXES, CONSTRAINTS or DATABASES')
    this.next()
    // `SHOW DATABASE name`: a filter on the name.
    let where: Expr | undefined
    if (
      procedure === 'show.databases' &&
      this.isName() &&
      !this.isKeyword('YIELD') &&
      !this.isKeyword('WHERE')
    ) {
      const nameStart = this.peek().start
      const name = this.parseGraphName()
      const end = this.lastEnd()
      where = {
        kind: 'binary',
        op: '=',
        left: { kind: 'var', name: 'name', start: nameStart, end },
        right: { kind: 'literal', value: name, start: nameStart, end },
        start: nameStart,
        end,
      }
    }
    if (this.acceptKeyword('EXECUTABLE')) {
      if (this.acceptKeyword('BY'))
        this.acceptKeyword('CURRENT') ? this.expectKeyword('USER') : this.expectName()
    }
    const yielded = this.parseYield()
    if (yielded.where !== undefined) where = yielded.where
    else if (yielded.yields === undefined && this.acceptKeyword('WHERE')) where = this.parseExpr()
    return {
      kind: 'call',
      procedure: ` ${procedure}`,
      args: [],
      yields: yielded.yields,
      where,
      start,
      end: this.lastEnd(),
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

  protected parseProjectionTail(distinct: boolean, star: boolean, items: ProjectionItem[]): Projection {
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
    const skip = this.acceptKeyword('SKIP') || this.acceptKeyword('OFFSET') ? this.parseExpr() : undefined
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
        const { labels, dynamic } = this.parseLabelItems()
        items.push({ kind: 'setLabels', variable, labels, ...dynamic, start, end: this.lastEnd() })
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
        const { labels, dynamic } = this.parseLabelItems()
        items.push({ kind: 'removeLabels', variable, labels, ...dynamic, start, end: this.lastEnd() })
      } else
        items.push({ kind: 'removeProperty', target: this.parsePropertyTarget(), start, end: this.lastEnd() })
    } while (this.acceptPunct(','))
    return items
  }

  /** `:A:B`, `:$(expr)` of SET/REMOVE: static labels and those computed per row. */
  private parseLabelItems(): { labels: string[]; dynamic: { dynamic?: Expr[] } } {
    const labels: string[] = []
    const dynamic: Expr[] = []
    while (this.acceptPunct(':')) {
      if (this.isPunct('$')) dynamic.push(this.parseDynamicName())
      else labels.push(this.expectName('a label'))
    }
    return { labels, dynamic: dynamic.length > 0 ? { dynamic } : {} }
  }

  /** `n.key`, `(expr).key` or `n[expr]` (a dynamic key): the target of SET/REMOVE of one property. */
  private parsePropertyTarget(): PropertyTarget {
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
    if (this.acceptPunct('[')) {
      const index = this.parseExpr()
      this.expectPunct(']')
      return { kind: 'index', target: expr, index, start, end: this.lastEnd() }
    }
    if (expr.kind !== 'prop') throw this.unexpected("'.' and a property key, or '[' and a key")
    return expr
  }

  /** True when the next token starts a clause; used to give better messages. */
  protected atClauseStart(): boolean {
    const token = this.peek()
    return token.kind === 'ident' && CLAUSE_STARTS.has(token.text.toUpperCase())
  }
}
