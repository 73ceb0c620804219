import { GraphCypherQAChain } from '@langchain/community/chains/graph_qa/cypher'
import { GraphDocument, Node, Relationship } from '@langchain/community/graphs/document'
import { Neo4jGraph } from '@langchain/community/graphs/neo4j_graph'
import { Document } from '@langchain/core/documents'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BoltServer, startBoltServer } from './bolt-support.js'
import { TOKEN } from './harness.js'

/** LangChain.js unchanged over Bolt: Neo4jGraph's schema (APOC meta), graph documents, and the Cypher QA chain. */
describe('LangChain.js over Bolt', () => {
  let server: BoltServer
  let graph: Neo4jGraph

  beforeAll(async () => {
    server = await startBoltServer()
    graph = await Neo4jGraph.initialize({ url: server.boltUrl(), username: 'langchain', password: TOKEN })
  })
  afterAll(async () => {
    await graph?.close()
    await server?.stop()
  })

  it('adds graph documents and reads the schema back', async () => {
    const alice = new Node({ id: 'Alice', type: 'Person', properties: { age: 33 } })
    const bob = new Node({ id: 'Bob', type: 'Person' })
    const acme = new Node({ id: 'Acme', type: 'Company' })
    await graph.addGraphDocuments(
      [
        new GraphDocument({
          nodes: [alice, bob, acme],
          relationships: [
            new Relationship({ source: alice, target: bob, type: 'KNOWS' }),
            new Relationship({ source: bob, target: acme, type: 'WORKS_AT', properties: { since: 2020 } }),
          ],
          source: new Document({ pageContent: 'Alice knows Bob, who works at Acme.' }),
        }),
      ],
      { includeSource: true },
    )
    await graph.refreshSchema()
    const schema = graph.getSchema()
    // LangChain's own rendering of what apoc.meta.data() answered.
    expect(schema).toContain('Person {age: INTEGER, id: STRING}')
    expect(schema).toContain('WORKS_AT {since: INTEGER')
    expect(schema).toContain('(: Person) - [: KNOWS] -> (:Person)')
    expect(schema).toContain('(: Person) - [: WORKS_AT] -> (:Company)')
    const rows = await graph.query(
      'MATCH (p:Person)-[:WORKS_AT]->(c:Company) RETURN p.id AS person, c.id AS company',
    )
    expect(rows).toEqual([{ person: 'Bob', company: 'Acme' }])
    const sources = await graph.query('MATCH (d:Document)-[:MENTIONS]->(n) RETURN count(n) AS c')
    expect(Number(sources?.[0]?.c)).toBe(3)
  })

  it('adds documents under a base entity label: its uniqueness constraint goes through a managed transaction', async () => {
    const carol = new Node({ id: 'Carol', type: 'Person' })
    await graph.addGraphDocuments(
      [
        new GraphDocument({
          nodes: [carol],
          relationships: [],
          source: new Document({ pageContent: 'Carol.' }),
        }),
      ],
      { baseEntityLabel: true },
    )
    const constraints = await graph.query('SHOW CONSTRAINTS YIELD labelsOrTypes RETURN labelsOrTypes')
    expect(JSON.stringify(constraints)).toContain('__Entity__')
    const rows = await graph.query("MATCH (n:__Entity__ {id: 'Carol'}) RETURN labels(n) AS labels")
    expect(rows?.[0]?.labels).toEqual(expect.arrayContaining(['Person', '__Entity__']))
  })

  it('answers through GraphCypherQAChain with a fake chat model writing the Cypher', async () => {
    const llm = new FakeListChatModel({
      responses: ["MATCH (p:Person)-[:KNOWS]->(:Person {id: 'Bob'}) RETURN p.id AS name", 'Alice knows Bob.'],
    })
    const chain = GraphCypherQAChain.fromLLM({ llm, graph, returnIntermediateSteps: true })
    const answer = await chain.invoke({ query: 'Who knows Bob?' })
    expect(answer.result).toBe('Alice knows Bob.')
    const steps = answer.intermediateSteps as { context?: unknown }[]
    expect(JSON.stringify(steps)).toContain('Alice')
  })
})
