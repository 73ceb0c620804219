import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { CypherEngine } from '../engine.js'
import type { CypherBudgets } from '../executor/context.js'
import { parseSignature } from './registry.js'

const SEED = `CREATE (a:Person {name: 'A', age: 30})-[:KNOWS {since: 2020}]->(b:Person {name: 'B'}),
  (b)-[:KNOWS]->(c:Person:Admin {name: 'C'}), (c)-[:LIKES]->(m:Movie {title: 'M', tags: ['x']}), (a)-[:LIKES]->(m)`

async function seeded(budgets?: Partial<CypherBudgets>) {
  const engine = new CypherEngine(new GraphCatalog(), budgets ? { budgets } : {})
  await engine.run({ query: SEED, mode: 'write' })
  return engine
}

async function rows(engine: CypherEngine, query: string, params?: Record<string, unknown>) {
  const result = await engine.run({ query, mode: 'auto', ...(params ? { params } : {}) })
  if (result.status !== 'Success')
    throw new Error(`${result.validation_errors[0]?.code}: ${result.validation_errors[0]?.message}`)
  return result.data as { columns: string[]; rows: unknown[][] }
}

async function failure(engine: CypherEngine, query: string) {
  const result = await engine.run({ query, mode: 'auto' })
  expect(result.status).not.toBe('Success')
  return result.validation_errors[0]
}

describe('CALL of built-in procedures', () => {
  it('db.labels, db.relationshipTypes, db.propertyKeys list the names in use, standalone and in-query', async () => {
    const engine = await seeded()
    expect(await rows(engine, 'CALL db.labels()')).toEqual({
      columns: ['label'],
      rows: [['Admin'], ['Movie'], ['Person']],
    })
    expect((await rows(engine, 'CALL db.relationshipTypes')).rows).toEqual([['KNOWS'], ['LIKES']])
    const keys = await rows(
      engine,
      'CALL db.propertyKeys() YIELD propertyKey AS k WHERE k <> "age" RETURN collect(k) AS keys',
    )
    expect(keys.rows).toEqual([[['name', 'since', 'tags', 'title']]])
  })

  it('db.schema.nodeTypeProperties and relTypeProperties answer in Neo4j’s shape', async () => {
    const engine = await seeded()
    const nodes = await rows(engine, 'CALL db.schema.nodeTypeProperties()')
    expect(nodes.columns).toEqual(['nodeType', 'nodeLabels', 'propertyName', 'propertyTypes', 'mandatory'])
    expect(nodes.rows).toContainEqual([':`Person`', ['Person'], 'age', ['Long'], false])
    expect(nodes.rows).toContainEqual([':`Movie`', ['Movie'], 'tags', ['StringArray'], true])
    const rels = await rows(engine, 'CALL db.schema.relTypeProperties()')
    expect(rels.rows).toEqual([
      [':`KNOWS`', 'since', ['Long'], false],
      [':`LIKES`', null, null, false],
    ])
  })

  it('dbms.components reports the Neo4j kernel version the dialect follows', async () => {
    const engine = await seeded()
    const result = await rows(
      engine,
      "CALL dbms.components() YIELD name, versions, edition WHERE name = 'Neo4j Kernel' RETURN versions[0] AS v, edition",
    )
    expect(result.rows).toEqual([['5.26.0', 'community']])
  })

  it('SHOW commands list procedures, functions, indexes, constraints and databases (workspaces)', async () => {
    const engine = await seeded()
    const procs = await rows(engine, 'SHOW PROCEDURES')
    expect(procs.columns).toEqual(['name', 'description', 'mode', 'worksOnSystem'])
    expect(procs.rows.map((row) => row[0])).toContain('apoc.meta.data')
    expect(procs.rows.find((row) => row[0] === 'apoc.merge.node')?.[2]).toBe('WRITE')
    const signature = await rows(
      engine,
      "SHOW PROCEDURES YIELD name, signature WHERE name = 'db.labels' RETURN signature",
    )
    expect(signature.rows).toEqual([['db.labels() :: (label :: STRING)']])
    const fns = await rows(
      engine,
      "SHOW FUNCTIONS YIELD name, aggregating WHERE name IN ['toBooleanList', 'count', 'apoc.coll.sum'] RETURN name, aggregating ORDER BY name",
    )
    expect(fns.rows).toEqual([
      ['apoc.coll.sum', false],
      ['count', true],
      ['toBooleanList', false],
    ])
    expect((await rows(engine, 'SHOW INDEXES YIELD name, type')).rows).toEqual([
      ['index_node_label_lookup', 'LOOKUP'],
    ])
    expect((await rows(engine, 'SHOW CONSTRAINTS')).rows).toEqual([])
    expect((await rows(engine, 'SHOW DATABASES YIELD name, aliases, default')).rows).toEqual([
      ['neo4j', ['workspace--http-default'], true],
    ])
  })

  it('a standalone call takes an ORDER BY / SKIP / LIMIT tail; OPTIONAL CALL keeps rows it yields nothing for', async () => {
    const engine = await seeded()
    expect(await rows(engine, 'CALL db.labels() YIELD label ORDER BY label DESC SKIP 1 LIMIT 1')).toEqual({
      columns: ['label'],
      rows: [['Movie']],
    })
    expect((await rows(engine, 'SHOW PROCEDURES YIELD name, mode ORDER BY name LIMIT 1')).rows).toEqual([
      ['apoc.create.addLabels', 'WRITE'],
    ])
    const optional = `MATCH (m:Movie) OPTIONAL CALL apoc.schema.properties.distinct('Movie', 'title') YIELD value
      WHERE size(value) > 5 RETURN m.title, value`
    expect((await rows(engine, optional)).rows).toEqual([['M', null]])
    expect((await rows(engine, optional.replace('OPTIONAL ', ''))).rows).toEqual([])
  })

  it('refuses unknown procedures, wrong arities, bad literal types and YIELD * in a query', async () => {
    const engine = await seeded()
    expect((await failure(engine, 'CALL db.nope()'))?.neo4j_code).toBe(
      'Neo.ClientError.Procedure.ProcedureNotFound',
    )
    expect((await failure(engine, 'CALL db.labels(1)'))?.code).toBe('INVALID_NUMBER_OF_ARGUMENTS')
    expect((await failure(engine, "CALL apoc.schema.properties.distinct(1, 'name')"))?.code).toBe(
      'INVALID_ARGUMENT_TYPE',
    )
    expect((await failure(engine, 'CALL db.labels() YIELD * RETURN label'))?.code).toBe('CYPHER_SYNTAX_ERROR')
    expect((await failure(engine, 'CALL db.labels() YIELD nope RETURN nope'))?.code).toBe(
      'UNKNOWN_PROCEDURE_OUTPUT',
    )
    expect((await failure(engine, 'WITH 1 AS label CALL db.labels() YIELD label RETURN label'))?.code).toBe(
      'VARIABLE_ALREADY_BOUND',
    )
  })

  it('counts every yielded row against the loaded-records budget', async () => {
    const engine = await seeded({ maxLoadedRecords: 2 })
    expect((await failure(engine, 'CALL db.labels()'))?.code).toBe('QUERY_BUDGET_EXCEEDED')
    const small = await seeded({ maxLoadedRecords: 3 })
    expect((await rows(small, 'CALL db.labels()')).rows).toHaveLength(3)
  })

  it('a procedure registered on the engine is callable with implicit arguments from parameters', async () => {
    const engine = await seeded()
    engine.registerProcedure({
      ...parseSignature('test.echo(text :: STRING?, times :: INTEGER?) :: (out :: STRING?)'),
      description: 'test',
      mode: 'READ',
      run: ([text, times]) => Array.from({ length: Number(times) }, () => [text ?? null]),
    })
    expect((await rows(engine, 'CALL test.echo', { text: 'hi', times: 2 })).rows).toEqual([['hi'], ['hi']])
    const missing = await engine.run({ query: 'CALL test.echo', mode: 'auto', params: { text: 'hi' } })
    expect(missing.validation_errors[0]?.code).toBe('PARAMETER_MISSING')
    expect((await failure(engine, 'MATCH (n) CALL test.echo YIELD out RETURN out'))?.code).toBe(
      'INVALID_ARGUMENT_PASSING_MODE',
    )
  })
})

describe('APOC procedures', () => {
  it('apoc.meta.data gives the rows LangChain’s Neo4jGraph builds its schema from', async () => {
    const engine = await seeded()
    const nodeProps = await rows(
      engine,
      `CALL apoc.meta.data() YIELD label, other, elementType, type, property
       WHERE NOT type = "RELATIONSHIP" AND elementType = "node"
       WITH label AS nodeLabels, collect({property:property, type:type}) AS properties
       RETURN {labels: nodeLabels, properties: properties} AS output`,
    )
    expect(nodeProps.rows).toContainEqual([
      {
        labels: 'Person',
        properties: [
          { property: 'age', type: 'INTEGER' },
          { property: 'name', type: 'STRING' },
        ],
      },
    ])
    const rels = await rows(
      engine,
      `CALL apoc.meta.data() YIELD label, other, elementType, type, property
       WHERE type = "RELATIONSHIP" AND elementType = "node"
       UNWIND other AS other_node
       RETURN {start: label, type: property, end: toString(other_node)} AS output`,
    )
    expect(rels.rows.map((row) => row[0])).toEqual([
      { start: 'Admin', type: 'LIKES', end: 'Movie' },
      { start: 'Person', type: 'KNOWS', end: 'Admin' },
      { start: 'Person', type: 'KNOWS', end: 'Person' },
      { start: 'Person', type: 'LIKES', end: 'Movie' },
    ])
    const relProps = await rows(
      engine,
      `CALL apoc.meta.data() YIELD label, other, elementType, type, property
       WHERE NOT type = "RELATIONSHIP" AND elementType = "relationship"
       WITH label AS nodeLabels, collect({property:property, type:type}) AS properties
       RETURN {type: nodeLabels, properties: properties} AS output`,
    )
    expect(relProps.rows).toEqual([[{ type: 'KNOWS', properties: [{ property: 'since', type: 'INTEGER' }] }]])
  })

  it('apoc.meta.schema gives the map the Neo4j MCP server reads', async () => {
    const engine = await seeded()
    const result = await rows(
      engine,
      `CALL apoc.meta.schema({sample: 1000}) YIELD value
       UNWIND keys(value) AS key WITH key, value[key] AS value
       RETURN key, value { .properties, .count, .type, .relationships } AS value ORDER BY key`,
    )
    expect(result.rows.map((row) => row[0])).toEqual(['Admin', 'KNOWS', 'LIKES', 'Movie', 'Person'])
    const person = result.rows.find((row) => row[0] === 'Person')?.[1] as Record<string, unknown>
    expect(person).toMatchObject({
      type: 'node',
      count: 3,
      properties: { age: { type: 'INTEGER', existence: false } },
    })
    expect(person.relationships).toMatchObject({ KNOWS: { direction: 'out', labels: ['Admin', 'Person'] } })
  })

  it('apoc.merge.node / merge.relationship / create.addLabels write once and match after', async () => {
    const engine = await seeded()
    const merge = `CALL apoc.merge.node(['Tool'], {name: $name}, {created: true}, {matched: true}) YIELD node RETURN node.created AS c, node.matched AS m`
    expect((await rows(engine, merge, { name: 'nmap' })).rows).toEqual([[true, null]])
    expect((await rows(engine, merge, { name: 'nmap' })).rows).toEqual([[true, true]])
    const rel = `MATCH (a:Person {name: 'A'}), (t:Tool) CALL apoc.merge.relationship(a, 'USES', {via: 'cli'}, {}, t) YIELD rel RETURN type(rel) AS t`
    await rows(engine, rel)
    await rows(engine, rel)
    expect((await rows(engine, 'MATCH ()-[r:USES]->() RETURN count(r) AS n')).rows).toEqual([[1]])
    await rows(engine, "MATCH (t:Tool) CALL apoc.create.addLabels(t, ['Software']) YIELD node RETURN node")
    expect((await rows(engine, 'MATCH (t:Tool:Software) RETURN count(t)')).rows).toEqual([[1]])
    const read = await engine.run({ query: merge, mode: 'read', params: { name: 'x' } })
    expect(read.validation_errors[0]?.code).toBe('WRITE_PERMISSION_REQUIRED')
  })

  it('apoc.schema.properties.distinct lists a label’s distinct values', async () => {
    const engine = await seeded()
    const result = await rows(
      engine,
      "CALL apoc.schema.properties.distinct('Person', 'name') YIELD value RETURN value",
    )
    expect(result.rows).toEqual([[['A', 'B', 'C']]])
  })
})

describe('apoc.neighbors.*', () => {
  // SEED: A -KNOWS-> B -KNOWS-> C, C -LIKES-> M, A -LIKES-> M.
  const names = async (engine: CypherEngine, call: string) =>
    (await rows(engine, `MATCH (a {name: 'A'}) ${call} RETURN collect(coalesce(node.name, node.title)) AS n`))
      .rows[0]?.[0] as string[]

  it('tohop and athop follow the pattern string, each node at the first distance it is reached', async () => {
    const engine = await seeded()
    expect(await names(engine, "CALL apoc.neighbors.tohop(a, 'KNOWS>', 2) YIELD node")).toEqual(['B', 'C'])
    expect(await names(engine, "CALL apoc.neighbors.tohop(a, 'KNOWS>|LIKES>', 1) YIELD node")).toEqual([
      'B',
      'M',
    ])
    // M is one hop away by LIKES, so not again at two; C is at two either way.
    expect((await names(engine, "CALL apoc.neighbors.athop(a, '', 2) YIELD node")).sort()).toEqual(['C'])
    expect(await names(engine, "CALL apoc.neighbors.tohop(a, '<KNOWS', 3) YIELD node")).toEqual([])
    expect(
      (
        await rows(
          engine,
          "MATCH (a {name: 'A'}) CALL apoc.neighbors.tohop.count(a, 'KNOWS', 5) YIELD value RETURN value",
        )
      ).rows,
    ).toEqual([[2]])
  })

  it('byhop gives a list a distance; a malformed pattern or distance is refused', async () => {
    const engine = await seeded()
    expect(
      (
        await rows(
          engine,
          "MATCH (a {name: 'A'}) CALL apoc.neighbors.byhop(a, 'KNOWS>', 2) YIELD nodes RETURN [n IN nodes | n.name] AS l",
        )
      ).rows,
    ).toEqual([[['B']], [['C']]])
    expect(
      (
        await failure(
          engine,
          "MATCH (a {name: 'A'}) CALL apoc.neighbors.tohop(a, '<K>', 1) YIELD node RETURN node",
        )
      )?.code,
    ).toBe('INVALID_ARGUMENT_VALUE')
    expect(
      (
        await failure(
          engine,
          "MATCH (a {name: 'A'}) CALL apoc.neighbors.tohop(a, 'K', 0) YIELD node RETURN node",
        )
      )?.code,
    ).toBe('INVALID_ARGUMENT_VALUE')
  })
})
