import { describe, expect, it } from 'vitest'
import { CypherEngine } from '../cypher/engine.js'
import { DEFAULT_WORKSPACE_ID, GraphCatalog } from '../graph/catalog.js'
import { seedProcedures } from './cypher-procedures.js'
import { HashedNgramProvider, hashedNgramVector } from './embeddings/hashed-ngrams.js'
import { EmbeddingSlot } from './embeddings/provider.js'
import { SeedIndex } from './seed-index.js'

async function setup(provider?: HashedNgramProvider) {
  const catalog = new GraphCatalog()
  const engine = new CypherEngine(catalog)
  await engine.run({
    query: `CREATE (:Malware {name: 'Ryuk', description: 'ransomware used by Wizard Spider'}),
                   (:Malware {name: 'Emotet', description: 'banking trojan and loader'}),
                   (:Tool {name: 'Ryuk Scanner', description: 'a scanner'})`,
    mode: 'write',
  })
  const slot = new EmbeddingSlot()
  if (provider) slot.set(provider)
  const index = new SeedIndex(slot)
  index.rebuild(new Map([[DEFAULT_WORKSPACE_ID, catalog.workspace()]]))
  for (const procedure of seedProcedures(index)) engine.registerProcedure(procedure)
  return engine
}

describe('db.index.fulltext / vector procedures over the seed index', () => {
  it('queryNodes needs a declared fulltext index and returns nodes of its labels, best first', async () => {
    const engine = await setup()
    const query =
      "CALL db.index.fulltext.queryNodes('malware_text', 'ryuk OR ransomware') YIELD node, score RETURN node.name AS name, score"
    const missing = await engine.run({ query, mode: 'read' })
    expect(missing.validation_errors[0]).toMatchObject({
      code: 'PROCEDURE_CALL_FAILED',
      neo4j_code: 'Neo.ClientError.Procedure.ProcedureCallFailed',
    })
    await engine.run({
      query: 'CREATE FULLTEXT INDEX malware_text FOR (n:Malware) ON EACH [n.name, n.description]',
      mode: 'write',
    })
    const result = await engine.run({ query, mode: 'read' })
    expect(result.data?.rows.map((row) => row[0])).toEqual(['Ryuk'])
    expect(result.data?.rows[0]?.[1]).toBeGreaterThan(0)
    const limited = await engine.run({
      query:
        "CALL db.index.fulltext.queryNodes('malware_text', 'name:ryuk OR emotet', {limit: 1}) YIELD node RETURN count(node)",
      mode: 'read',
    })
    expect(limited.data?.rows).toEqual([[1]])
  })

  it('vector queries need an embedding provider and a declared vector index', async () => {
    const engine = await setup()
    const query = "CALL db.index.vector.queryNodes('emb', 2, [0.1, 0.2]) YIELD node RETURN node"
    expect((await engine.run({ query, mode: 'read' })).validation_errors[0]?.code).toBe(
      'PROCEDURE_CALL_FAILED',
    )
    await engine.run({ query: 'CREATE VECTOR INDEX emb FOR (n:Malware) ON (n.embedding)', mode: 'write' })
    const noProvider = await engine.run({ query, mode: 'read' })
    expect(noProvider.validation_errors[0]?.message).toMatch(/embedding provider/)
  })

  it('vector queries return the nearest nodes of the index label, scored as Neo4j scales cosine', async () => {
    const engine = await setup(new HashedNgramProvider())
    await engine.run({ query: 'CREATE VECTOR INDEX emb FOR (n:Malware) ON (n.embedding)', mode: 'write' })
    const vector = [...hashedNgramVector('Ryuk ransomware used by Wizard Spider')]
    const result = await engine.run({
      query: "CALL db.index.vector.queryNodes('emb', 1, $v) YIELD node, score RETURN node.name, score",
      mode: 'read',
      params: { v: vector },
    })
    expect(result.validation_errors).toEqual([])
    expect(result.data?.rows[0]?.[0]).toBe('Ryuk')
    expect(result.data?.rows[0]?.[1]).toBeGreaterThan(0.5)
    const wrong = await engine.run({
      query: "CALL db.index.vector.queryNodes('emb', 1, [1.0, 2.0]) YIELD node RETURN node",
      mode: 'read',
    })
    expect(wrong.validation_errors[0]?.code).toBe('INVALID_ARGUMENT_VALUE')
  })
})
