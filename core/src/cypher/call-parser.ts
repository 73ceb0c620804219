import type { Clause, Expr, YieldItem } from './ast.js'
import { ClauseItemsParser } from './clause-items-parser.js'

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

/**
 * `CALL` in its forms: a subquery `CALL { … }` (optionally IN TRANSACTIONS), a procedure call with YIELD,
 * and the `SHOW …` commands, which are procedure calls too.
 */
export abstract class CallParser extends ClauseItemsParser {
  /** A graph name: `neo4j`, `` `my-db` ``, `a.b` (composite names are joined by dots). */
  protected parseGraphName(): string {
    let name = this.expectName('a graph name')
    while (this.isPunct('.') && this.isName(1)) {
      this.next()
      name += `.${this.expectName()}`
    }
    return name
  }
  /** `CALL { … }`, `CALL (x) { … }`, or a procedure call `CALL ns.name(args) YIELD … WHERE …`. */
  protected parseCall(optional: boolean): Clause {
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
  protected parseShow(): Clause {
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
}
