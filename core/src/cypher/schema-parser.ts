import type { Clause, Expr, SchemaCommand } from './ast.js'
import { PatternParser } from './pattern-parser.js'

const INDEX_TYPES = new Set(['RANGE', 'TEXT', 'POINT', 'LOOKUP', 'FULLTEXT', 'VECTOR', 'BTREE'])

/**
 * Schema commands of Neo4j 5 (and the 4.x `ON … ASSERT` constraint form):
 * `CREATE [RANGE|TEXT|POINT|FULLTEXT|VECTOR] INDEX [name] [IF NOT EXISTS] FOR (n:L) ON (n.a, n.b) [OPTIONS {…}]`,
 * `CREATE FULLTEXT INDEX name FOR (n:A|B) ON EACH [n.a, n.b]`, `CREATE CONSTRAINT [name] [IF NOT EXISTS]
 * FOR (n:L) REQUIRE n.a IS UNIQUE | IS NODE KEY | IS NOT NULL | IS :: TYPE`, `DROP INDEX|CONSTRAINT name [IF EXISTS]`.
 */
export abstract class SchemaParser extends PatternParser {
  /** At `CREATE` or `DROP` followed by a schema word; undefined otherwise (cursor unchanged). */
  protected parseSchemaCommand(): Clause | undefined {
    const start = this.peek().start
    if (this.isKeyword('DROP') && (this.isKeyword('INDEX', 1) || this.isKeyword('CONSTRAINT', 1))) {
      this.next()
      const what = this.next().text.toLowerCase() as 'index' | 'constraint'
      const name = this.expectName(`the ${what} name`)
      const ifExists = this.acceptKeyword('IF', 'EXISTS')
      return this.schema({ action: 'drop', what, name, ifExists }, start)
    }
    if (!this.isKeyword('CREATE')) return undefined
    let k = 1
    let type: string | undefined
    if (
      this.isName(k) &&
      INDEX_TYPES.has(this.peek(k).text.toUpperCase()) &&
      this.isKeyword('INDEX', k + 1)
    ) {
      type = this.peek(k).text.toUpperCase()
      k++
    }
    if (this.isKeyword('INDEX', k)) {
      this.pos += k + 1
      return this.parseCreateIndex(type === 'BTREE' ? 'RANGE' : (type ?? 'RANGE'), start)
    }
    if (this.isKeyword('CONSTRAINT', 1)) {
      this.pos += 2
      return this.parseCreateConstraint(start)
    }
    return undefined
  }

  private schema(command: SchemaCommand, start: number): Clause {
    return { kind: 'schema', command, start, end: this.lastEnd() }
  }

  /** `[name] [IF NOT EXISTS]` (`IF` can be a name only when followed by NOT EXISTS, so the check comes first). */
  private nameAndGuard(): { name: string | undefined; ifNotExists: boolean } {
    let name: string | undefined
    if (
      this.isName() &&
      !this.isKeyword('FOR') &&
      !this.isKeyword('ON') &&
      !(this.isKeyword('IF') && this.isKeyword('NOT', 1))
    )
      name = this.expectName()
    return { name, ifNotExists: this.acceptKeyword('IF', 'NOT', 'EXISTS') }
  }

  /** `FOR (n:L)`, `FOR (n:A|B)`, `FOR ()-[r:T]-()` (also `ON` of the 4.x form): the variable and what it names. */
  private parseTarget(): { variable: string; entityType: 'NODE' | 'RELATIONSHIP'; labelsOrTypes: string[] } {
    if (!this.acceptKeyword('FOR')) this.expectKeyword('ON')
    this.expectPunct('(')
    if (this.acceptPunct(')')) {
      // ()-[r:T]-() with any arrows
      this.acceptPunct('<')
      this.expectPunct('-')
      this.expectPunct('[')
      const variable = this.expectName('a variable')
      const labelsOrTypes = this.labelList()
      this.expectPunct(']')
      this.expectPunct('-')
      this.acceptPunct('>')
      this.expectPunct('(')
      this.expectPunct(')')
      return { variable, entityType: 'RELATIONSHIP', labelsOrTypes }
    }
    const variable = this.expectName('a variable')
    const labelsOrTypes = this.labelList()
    this.expectPunct(')')
    return { variable, entityType: 'NODE', labelsOrTypes }
  }

  private labelList(): string[] {
    const out: string[] = []
    this.expectPunct(':')
    do out.push(this.expectName('a label'))
    while (this.acceptPunct('|') || this.acceptPunct(':'))
    return out
  }

  /** `n.a` or `(n.a, n.b)` or `[n.a, n.b]`: property keys of the target variable. */
  private parseProperties(variable: string): string[] {
    const close = this.acceptPunct('(') ? ')' : this.acceptPunct('[') ? ']' : undefined
    const keys: string[] = []
    do {
      const at = this.peek()
      const name = this.expectName('a variable')
      if (name !== variable)
        throw this.errorAt('UNDEFINED_VARIABLE', `variable '${name}' is not defined`, at.start)
      this.expectPunct('.')
      keys.push(this.expectName('a property key'))
    } while (close !== undefined && this.acceptPunct(','))
    if (close !== undefined) this.expectPunct(close)
    return keys
  }

  private parseOptions(): Expr | undefined {
    if (!this.acceptKeyword('OPTIONS')) return undefined
    return this.parseExpr()
  }

  private parseCreateIndex(type: string, start: number): Clause {
    const { name, ifNotExists } = this.nameAndGuard()
    const target = this.parseTarget()
    this.expectKeyword('ON')
    if (type === 'LOOKUP') {
      // ON EACH labels(n) / ON EACH type(r)
      this.acceptKeyword('EACH')
      this.expectName()
      this.expectPunct('(')
      this.expectName()
      this.expectPunct(')')
      return this.schema(
        {
          action: 'create',
          what: 'index',
          name,
          ifNotExists,
          type,
          ...target,
          labelsOrTypes: [],
          properties: [],
          options: this.parseOptions(),
        },
        start,
      )
    }
    this.acceptKeyword('EACH')
    const properties = this.parseProperties(target.variable)
    const options = this.parseOptions()
    if (type !== 'FULLTEXT' && target.labelsOrTypes.length !== 1)
      throw this.errorAt('CYPHER_SYNTAX_ERROR', `a ${type} index is on exactly one label or type`, start)
    const { variable: _variable, ...rest } = target
    return this.schema(
      { action: 'create', what: 'index', name, ifNotExists, type, ...rest, properties, options },
      start,
    )
  }

  private parseCreateConstraint(start: number): Clause {
    const { name, ifNotExists } = this.nameAndGuard()
    const target = this.parseTarget()
    if (!this.acceptKeyword('REQUIRE')) this.expectKeyword('ASSERT')
    const properties = this.parseProperties(target.variable)
    this.expectKeyword('IS')
    let type: string
    let propertyType: string | undefined
    if (this.acceptKeyword('UNIQUE')) type = 'UNIQUENESS'
    else if (
      this.acceptKeyword('NODE', 'KEY') ||
      this.acceptKeyword('RELATIONSHIP', 'KEY') ||
      this.acceptKeyword('KEY')
    )
      type = 'KEY'
    else if (this.acceptKeyword('NOT', 'NULL')) type = 'PROPERTY_EXISTENCE'
    else if (this.isPunct(':') || this.isKeyword('TYPED')) {
      if (!this.acceptKeyword('TYPED')) {
        this.expectPunct(':')
        this.expectPunct(':')
      }
      type = 'PROPERTY_TYPE'
      propertyType = this.expectName('a type').toUpperCase()
    } else throw this.unexpected('UNIQUE, NODE KEY, NOT NULL or :: TYPE')
    const prefix = target.entityType === 'NODE' ? 'NODE' : 'RELATIONSHIP'
    const fullType =
      type === 'UNIQUENESS'
        ? prefix === 'NODE'
          ? 'UNIQUENESS'
          : 'RELATIONSHIP_UNIQUENESS'
        : `${prefix}_${type}`
    const { variable: _variable, ...rest } = target
    return this.schema(
      {
        action: 'create',
        what: 'constraint',
        name,
        ifNotExists,
        type: fullType,
        ...rest,
        properties,
        ...(propertyType ? { propertyType } : {}),
        options: this.parseOptions(),
      },
      start,
    )
  }
}
