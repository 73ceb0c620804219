import { describe, expect, it } from 'vitest'
import type { Expr } from './ast.js'
import { isWriteQuery } from './ast.js'
import { CypherError } from './errors.js'
import { parseQuery } from './parser.js'

const parse = (text: string) => parseQuery(text, { maxExpressionDepth: 256 })
const returnExpr = (text: string): Expr => {
  const clause = parse(`RETURN ${text}`).parts[0]?.clauses[0]
  if (clause?.kind !== 'return') throw new Error('not a RETURN')
  return clause.projection.items[0]?.expr as Expr
}
const failure = (text: string, depth = 256): CypherError => {
  try {
    parseQuery(text, { maxExpressionDepth: depth })
  } catch (error) {
    if (error instanceof CypherError) return error
    throw error
  }
  throw new Error('expected a failure')
}

describe('parser', () => {
  it('parses clauses, patterns and projections', () => {
    const query = parse(
      'MATCH p = (a:Person {name: $n})-[r:KNOWS|LIKES*1..3]->(b) WHERE a.age > 3 WITH a, count(*) AS c ORDER BY c DESC SKIP 1 LIMIT 2 RETURN a.name AS name',
    )
    const [match, withClause, ret] = query.parts[0]?.clauses ?? []
    expect(match?.kind).toBe('match')
    if (match?.kind !== 'match') return
    const part = match.pattern[0]
    expect(part?.variable).toBe('p')
    expect(part?.nodes[0]).toMatchObject({ variable: 'a', labels: ['Person'] })
    expect(part?.rels[0]).toMatchObject({
      variable: 'r',
      types: ['KNOWS', 'LIKES'],
      direction: 'out',
      varLength: { min: 1, max: 3 },
    })
    expect(withClause?.kind).toBe('with')
    if (withClause?.kind === 'with') {
      expect(withClause.projection.orderBy[0]?.descending).toBe(true)
      expect(withClause.projection.skip).toMatchObject({ kind: 'literal', value: 1n })
    }
    expect(ret?.kind).toBe('return')
  })

  it('parses directions, including <--> as undirected', () => {
    const dirs = (text: string) => {
      const clause = parse(`MATCH ${text} RETURN 1`).parts[0]?.clauses[0]
      return clause?.kind === 'match' ? clause.pattern[0]?.rels.map((r) => r.direction) : []
    }
    expect(dirs('(a)-->(b)<--(c)--(d)<-->(e)')).toEqual(['out', 'in', 'both', 'both'])
    expect(dirs('(a)-[*]->(b)')).toEqual(['out'])
  })

  it('respects operator precedence and chains comparisons', () => {
    expect(returnExpr('1 + 2 * 3')).toMatchObject({ op: '+', right: { op: '*' } })
    expect(returnExpr('NOT a = b')).toMatchObject({ op: 'NOT', operand: { op: '=' } })
    expect(returnExpr('a OR b AND c')).toMatchObject({ op: 'OR', right: { op: 'AND' } })
    expect(returnExpr('1 < x < 3')).toMatchObject({ op: 'AND', left: { op: '<' }, right: { op: '<' } })
    expect(returnExpr('x IS NOT NULL')).toMatchObject({ kind: 'isNull', negated: true })
    expect(returnExpr("n.name STARTS WITH 'A'")).toMatchObject({ op: 'STARTS WITH' })
    expect(returnExpr('-9223372036854775808')).toMatchObject({ kind: 'literal', value: -(2n ** 63n) })
  })

  it('parses CASE, comprehensions, quantifiers, slices and map projections', () => {
    expect(returnExpr('CASE WHEN x THEN 1 ELSE 2 END')).toMatchObject({ kind: 'case', subject: undefined })
    expect(returnExpr('[x IN list WHERE x > 1 | x * 2]')).toMatchObject({ kind: 'listComp', variable: 'x' })
    expect(returnExpr('any(x IN list WHERE x)')).toMatchObject({ kind: 'quantifier', quantifier: 'any' })
    expect(returnExpr('list[1..2]')).toMatchObject({ kind: 'slice' })
    expect(returnExpr('n {.name, k: 1}')).toMatchObject({ kind: 'mapProjection', variable: 'n' })
    expect(returnExpr('count(DISTINCT x)')).toMatchObject({ kind: 'call', distinct: true })
    expect(returnExpr('count(*)')).toMatchObject({ kind: 'call', star: true })
  })

  it('records source positions and uses the source text as column name', () => {
    const clause = parse('MATCH (n)\nRETURN  (n.age) + 1').parts[0]?.clauses[1]
    if (clause?.kind !== 'return') throw new Error('not a RETURN')
    const item = clause.projection.items[0]
    expect(item?.text).toBe('(n.age) + 1')
    expect(item?.start).toBe(18)
  })

  it('reports syntax errors with line and column', () => {
    const error = failure('MATCH (n)\nRETURN n.')
    expect(error.code).toBe('CYPHER_SYNTAX_ERROR')
    expect(error.phase).toBe('compile')
    expect(error.position).toEqual({ line: 2, column: 9, offset: 18 })
  })

  it('rejects unsupported features with their position', () => {
    expect(failure('START n=node(1) RETURN n').code).toBe('UNSUPPORTED_CYPHER_FEATURE')
    expect(failure('MATCH (n) START m=node(1) RETURN n').position?.column).toBe(11)
    // Neo4j 5 calls PERIODIC COMMIT a syntax error and points at IN TRANSACTIONS.
    const periodic = failure("USING PERIODIC COMMIT LOAD CSV FROM 'file:///a.csv' AS r CREATE ()")
    expect(periodic.code).toBe('CYPHER_SYNTAX_ERROR')
    expect(periodic.message).toContain('CALL { … } IN TRANSACTIONS')
  })

  it('parses LOAD CSV with its options', () => {
    const clause = parseQuery("LOAD CSV WITH HEADERS FROM $url AS row FIELDTERMINATOR '\\t' RETURN row", {
      maxExpressionDepth: 64,
    }).parts[0]?.clauses[0]
    expect(clause).toMatchObject({ kind: 'loadCsv', headers: true, variable: 'row', terminator: '\t' })
    expect(failure("LOAD CSV FROM 'a' row RETURN row").code).toBe('CYPHER_SYNTAX_ERROR')
    expect(failure("LOAD CSV FROM 'a' AS row FIELDTERMINATOR '\"' RETURN row").code).toBe(
      'INVALID_ARGUMENT_VALUE',
    )
  })

  it('rejects integer literals outside 64 bits', () => {
    expect(failure('RETURN 9223372036854775808').code).toBe('INTEGER_OVERFLOW')
    expect(failure('RETURN 1e400').code).toBe('FLOATING_POINT_OVERFLOW')
  })

  it('bounds nesting: 10,000 levels is a clean budget error, not a stack overflow', () => {
    const deep = `RETURN ${'('.repeat(10_000)}1${')'.repeat(10_000)}`
    const error = failure(deep)
    expect(error.code).toBe('QUERY_BUDGET_EXCEEDED')
    expect(error.message).toBe('query budget exceeded for expression_depth: actual 257, limit 256')
    expect(failure(`RETURN ${'NOT '.repeat(10_000)}true`).code).toBe('QUERY_BUDGET_EXCEEDED')
    expect(failure(`RETURN ${'['.repeat(5_000)}${']'.repeat(5_000)}`).code).toBe('QUERY_BUDGET_EXCEEDED')
    expect(() =>
      parseQuery(`RETURN ${'('.repeat(255)}1${')'.repeat(255)}`, { maxExpressionDepth: 256 }),
    ).not.toThrow()
  })

  it('classifies writes from the AST, not from keywords in strings', () => {
    expect(isWriteQuery(parse("RETURN 'CREATE (n)' AS text"))).toBe(false)
    expect(isWriteQuery(parse('MATCH (n) WHERE n.set = 1 RETURN n.delete'))).toBe(false)
    expect(isWriteQuery(parse('MATCH (n) SET n.x = 1'))).toBe(true)
    expect(isWriteQuery(parse('MERGE (n:A)'))).toBe(true)
    expect(isWriteQuery(parse('MATCH (n) RETURN 1 UNION MATCH (m) DETACH DELETE m RETURN 1'))).toBe(true)
  })
})
