import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { CypherEngine } from '../engine.js'
import { SchemaCatalog } from './catalog.js'

async function run(engine: CypherEngine, query: string) {
  return engine.run({ query, mode: 'write' })
}

describe('schema commands', () => {
  it('CREATE CONSTRAINT … IS UNIQUE is enforced on CREATE, SET and MERGE, and checked against existing data', async () => {
    const engine = new CypherEngine(new GraphCatalog())
    await run(engine, "CREATE (:Person {name: 'A'})")
    // IF NOT EXISTS: the second is a no-op.
    for (let i = 0; i < 2; i++) {
      const create = 'CREATE CONSTRAINT person_name IF NOT EXISTS FOR (p:Person) REQUIRE p.name IS UNIQUE'
      expect((await run(engine, create)).status).toBe('Success')
    }
    const equivalent = await run(engine, 'CREATE CONSTRAINT FOR (p:Person) REQUIRE p.name IS UNIQUE')
    expect(equivalent.validation_errors[0]).toMatchObject({
      code: 'EQUIVALENT_SCHEMA_RULE_ALREADY_EXISTS',
      neo4j_code: 'Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists',
    })
    const dup = await run(engine, "CREATE (:Person {name: 'A'})")
    expect(dup.validation_errors[0]).toMatchObject({
      code: 'CONSTRAINT_VALIDATION_FAILED',
      neo4j_code: 'Neo.ClientError.Schema.ConstraintValidationFailed',
    })
    expect((await run(engine, "CREATE (:Person {name: 'B'})")).status).toBe('Success')
    expect(
      (await run(engine, "MATCH (p:Person {name: 'B'}) SET p.name = 'A'")).validation_errors[0]?.code,
    ).toBe('CONSTRAINT_VALIDATION_FAILED')
    expect((await run(engine, "MERGE (p:Person {name: 'A'}) RETURN p")).status).toBe('Success')
    expect((await run(engine, "CREATE (:Other {name: 'A'})")).status).toBe('Success')
    const count = await engine.run({ query: 'MATCH (p:Person) RETURN count(p)', mode: 'read' })
    expect(count.data?.rows).toEqual([[2]])
    const existing = await run(engine, 'CREATE CONSTRAINT FOR (o:Other) REQUIRE o.kind IS NOT NULL')
    expect(existing.validation_errors[0]?.code).toBe('CONSTRAINT_CREATION_FAILED')
    expect((await run(engine, 'DROP CONSTRAINT person_name')).status).toBe('Success')
    expect((await run(engine, "CREATE (:Person {name: 'A'})")).status).toBe('Success')
    expect((await run(engine, 'DROP CONSTRAINT person_name')).validation_errors[0]?.code).toBe(
      'CONSTRAINT_DROP_FAILED',
    )
    expect((await run(engine, 'DROP CONSTRAINT person_name IF EXISTS')).status).toBe('Success')
  })

  it('existence, key and type constraints', async () => {
    const engine = new CypherEngine(new GraphCatalog())
    await run(engine, 'CREATE CONSTRAINT FOR (m:Movie) REQUIRE m.title IS NOT NULL')
    expect((await run(engine, 'CREATE (:Movie)')).validation_errors[0]?.code).toBe(
      'CONSTRAINT_VALIDATION_FAILED',
    )
    await run(engine, 'CREATE CONSTRAINT k FOR (t:Tool) REQUIRE (t.name, t.version) IS NODE KEY')
    expect((await run(engine, "CREATE (:Tool {name: 'nmap'})")).validation_errors[0]?.code).toBe(
      'CONSTRAINT_VALIDATION_FAILED',
    )
    expect(
      (await run(engine, "CREATE (:Tool {name: 'nmap', version: 1}), (:Tool {name: 'nmap', version: 2})"))
        .status,
    ).toBe('Success')
    expect((await run(engine, "CREATE (:Tool {name: 'nmap', version: 1})")).validation_errors[0]?.code).toBe(
      'CONSTRAINT_VALIDATION_FAILED',
    )
    await run(engine, 'CREATE CONSTRAINT FOR (s:Score) REQUIRE s.v IS :: INTEGER')
    expect((await run(engine, "CREATE (:Score {v: 'x'})")).validation_errors[0]?.code).toBe(
      'CONSTRAINT_VALIDATION_FAILED',
    )
    expect((await run(engine, 'CREATE (:Score {v: 3})')).status).toBe('Success')
    expect(
      (await run(engine, 'CREATE CONSTRAINT FOR ()-[r:R]-() REQUIRE r.x IS UNIQUE')).validation_errors[0]
        ?.code,
    ).toBe('UNSUPPORTED_CYPHER_FEATURE')
  })

  it('indexes are recorded and listed by SHOW INDEXES, with their create statement', async () => {
    const engine = new CypherEngine(new GraphCatalog())
    await run(engine, 'CREATE INDEX movie_title IF NOT EXISTS FOR (m:Movie) ON (m.title)')
    await run(engine, 'CREATE FULLTEXT INDEX ft IF NOT EXISTS FOR (n:Movie|Person) ON EACH [n.title, n.name]')
    await run(
      engine,
      "CREATE VECTOR INDEX emb IF NOT EXISTS FOR (m:Movie) ON m.embedding OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}",
    )
    const shown = await engine.run({
      query: 'SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options, createStatement',
      mode: 'read',
    })
    expect(shown.data?.rows.slice(1)).toEqual([
      [
        'movie_title',
        'RANGE',
        ['Movie'],
        ['title'],
        {},
        'CREATE RANGE INDEX `movie_title` FOR (n:`Movie`) ON (n.`title`)',
      ],
      [
        'ft',
        'FULLTEXT',
        ['Movie', 'Person'],
        ['title', 'name'],
        {},
        'CREATE FULLTEXT INDEX `ft` FOR (n:`Movie`|`Person`) ON EACH [n.`title`, n.`name`]',
      ],
      [
        'emb',
        'VECTOR',
        ['Movie'],
        ['embedding'],
        { indexConfig: { 'vector.dimensions': 3, 'vector.similarity_function': 'cosine' } },
        'CREATE VECTOR INDEX `emb` FOR (n:`Movie`) ON (n.`embedding`)',
      ],
    ])
    expect((await run(engine, 'DROP INDEX movie_title')).status).toBe('Success')
    expect((await run(engine, 'DROP INDEX movie_title')).validation_errors[0]?.code).toBe('INDEX_DROP_FAILED')
    const read = await engine.run({ query: 'CREATE INDEX x FOR (n:A) ON (n.b)', mode: 'read' })
    expect(read.validation_errors[0]?.code).toBe('WRITE_PERMISSION_REQUIRED')
    expect(
      (await engine.execute({ query: 'EXPLAIN CREATE INDEX y FOR (n:A) ON (n.b)', mode: 'write' })).explained
        ?.queryType,
    ).toBe('s')
    expect((await run(engine, 'CREATE INDEX z FOR (n:A) ON (n.b) RETURN 1')).status).not.toBe('Success')
  })

  it('journals each change and replays it: records and checkpoint lines', async () => {
    const journal: [string, unknown][] = []
    const schema = new SchemaCatalog(async (kind, body) => {
      journal.push([kind, body])
    })
    const engine = new CypherEngine(new GraphCatalog(), { schema })
    await run(engine, 'CREATE CONSTRAINT c FOR (p:P) REQUIRE p.k IS UNIQUE')
    await run(engine, 'CREATE INDEX i FOR (p:P) ON (p.j)')
    await run(engine, 'DROP INDEX i')
    expect(journal.map(([, body]) => (body as { op: string }).op)).toEqual(['create', 'create', 'drop'])
    const replayed = new SchemaCatalog()
    for (const [kind, body] of journal) replayed.applyRecord(kind, body)
    expect(replayed.rules('workspace--http-default').map((rule) => rule.name)).toEqual(['c'])
    const restored = new SchemaCatalog()
    for (const line of schema.imageLines()) restored.loadLine(line)
    expect(restored.rules('workspace--http-default')).toEqual(schema.rules('workspace--http-default'))
  })
})
