import { describe, expect, it } from 'vitest'
import { CypherError } from './errors.js'
import { planQuery } from './planner.js'

const options = { maxExpressionDepth: 256, maxVariableLengthHops: 15, collectErrors: true }
function codes(text: string): string[] {
  try {
    return planQuery(text, options).errors.map((error) => error.code)
  } catch (error) {
    if (error instanceof CypherError) return [error.code]
    throw error
  }
}

describe('semantic analysis', () => {
  it('accepts well-formed queries', () => {
    expect(codes('MATCH (a)-[r]->(b) WITH a, count(r) AS c WHERE c > 1 RETURN a, c ORDER BY c')).toEqual([])
    expect(codes('UNWIND [1, 2] AS x RETURN [y IN range(1, x) | y * 2] AS ys')).toEqual([])
  })

  it('reports undefined variables, with every error in validate mode', () => {
    expect(codes('MATCH (n) RETURN m')).toEqual(['UNDEFINED_VARIABLE'])
    expect(codes('MATCH (n) WITH n.x AS x RETURN n')).toEqual(['UNDEFINED_VARIABLE'])
    expect(codes('RETURN a, b, nope(1)')).toEqual([
      'UNDEFINED_VARIABLE',
      'UNDEFINED_VARIABLE',
      'UNKNOWN_FUNCTION',
    ])
  })

  it('reports variable type conflicts and rebinding', () => {
    expect(codes('MATCH (n)-[n]->() RETURN n')).toContain('VARIABLE_TYPE_CONFLICT')
    expect(codes('WITH 1 AS n MATCH (n) RETURN n')).toContain('VARIABLE_TYPE_CONFLICT')
    expect(codes('MATCH (a) CREATE (a:L) RETURN a')).toContain('VARIABLE_ALREADY_BOUND')
    expect(codes('MATCH (a)-[r]->(b)-[r]->(c) RETURN a')).toContain('RELATIONSHIP_UNIQUENESS_VIOLATION')
  })

  it('enforces aggregation rules', () => {
    expect(codes('MATCH (n) WHERE count(n) > 1 RETURN n')).toEqual(['INVALID_AGGREGATION'])
    expect(codes('RETURN count(count(1))')).toEqual(['NESTED_AGGREGATION'])
    expect(codes('MATCH (me)--(you) RETURN me.age + count(you)')).toEqual([
      'AMBIGUOUS_AGGREGATION_EXPRESSION',
    ])
    expect(codes('MATCH (me)--(you) RETURN me.age, me.age + count(you)')).toEqual([])
    expect(codes('RETURN [x IN [1] | count(x)]')).toEqual(['INVALID_AGGREGATION'])
  })

  it('checks projections, clause order and function arity', () => {
    expect(codes('MATCH (n) WITH n.x RETURN 1')).toEqual(['NO_EXPRESSION_ALIAS'])
    expect(codes('RETURN 1 AS a, 2 AS a')).toEqual(['COLUMN_NAME_CONFLICT'])
    expect(codes('MATCH (n)')).toEqual(['INVALID_CLAUSE_COMPOSITION'])
    expect(codes('RETURN 1 RETURN 2')).toContain('INVALID_CLAUSE_COMPOSITION')
    expect(codes('RETURN size(1, 2)')).toEqual(['INVALID_NUMBER_OF_ARGUMENTS'])
    expect(codes('RETURN 1 UNION RETURN 2 AS b')).toEqual(['DIFFERENT_COLUMNS_IN_UNION'])
    expect(codes('MATCH (n) RETURN n SKIP -1')).toEqual(['NEGATIVE_INTEGER_ARGUMENT'])
    expect(codes('MATCH (n) RETURN n LIMIT n.x')).toContain('NON_CONSTANT_EXPRESSION')
  })

  it('checks CREATE patterns', () => {
    expect(codes('CREATE (a)-[:A|B]->(b)')).toEqual(['NO_SINGLE_RELATIONSHIP_TYPE'])
    expect(codes('CREATE (a)-[:A]-(b)')).toEqual(['REQUIRES_DIRECTED_RELATIONSHIP'])
    expect(codes('CREATE (a)-[:A*2]->(b)')).toEqual(['CREATING_VAR_LENGTH'])
    expect(codes('MATCH (n $p) RETURN n')).toEqual(['INVALID_PARAMETER_USE'])
  })

  it('refuses variable-length bounds above the hop limit', () => {
    expect(codes('MATCH (a)-[*1..16]->(b) RETURN b')).toEqual(['QUERY_BUDGET_EXCEEDED'])
    expect(codes('MATCH (a)-[*1..15]->(b) RETURN b')).toEqual([])
  })
})
