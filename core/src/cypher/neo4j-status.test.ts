import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../graph/catalog.js'
import { CypherEngine } from './engine.js'
import { neo4jStatusCode } from './neo4j-status.js'

describe('neo4jStatusCode', () => {
  it('maps our codes to the Neo4j class a driver matches on', () => {
    expect(neo4jStatusCode('CYPHER_SYNTAX_ERROR')).toBe('Neo.ClientError.Statement.SyntaxError')
    expect(neo4jStatusCode('UNDEFINED_VARIABLE')).toBe('Neo.ClientError.Statement.SemanticError')
    expect(neo4jStatusCode('PARAMETER_MISSING')).toBe('Neo.ClientError.Statement.ParameterMissing')
    expect(neo4jStatusCode('INVALID_ARGUMENT_TYPE')).toBe('Neo.ClientError.Statement.TypeError')
    expect(neo4jStatusCode('STORAGE_FOLLOWER_LAGGING')).toMatch(/^Neo\.TransientError\./)
    expect(neo4jStatusCode('DURABILITY_FAILED')).toMatch(/^Neo\.DatabaseError\./)
  })

  it('falls back by phase for a code it does not list', () => {
    expect(neo4jStatusCode('SOMETHING_NEW', 'compile')).toBe('Neo.ClientError.Statement.SemanticError')
    expect(neo4jStatusCode('SOMETHING_NEW', 'runtime')).toBe('Neo.ClientError.Statement.ExecutionFailed')
    expect(neo4jStatusCode('SOMETHING_NEW')).toBe('Neo.DatabaseError.General.UnknownError')
  })

  it('is carried by every validation error of a Cypher result', async () => {
    const engine = new CypherEngine(new GraphCatalog())
    const syntax = await engine.run({ query: 'MATCH (n RETURN n', mode: 'read' })
    expect(syntax.validation_errors[0]).toMatchObject({
      code: 'CYPHER_SYNTAX_ERROR',
      neo4j_code: 'Neo.ClientError.Statement.SyntaxError',
    })
    const missing = await engine.run({ query: 'RETURN $x', mode: 'read' })
    expect(missing.validation_errors[0]?.neo4j_code).toBe('Neo.ClientError.Statement.ParameterMissing')
  })
})
