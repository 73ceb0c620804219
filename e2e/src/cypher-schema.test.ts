/**
 * The schema queries agents send at start-up, against an imported ATT&CK bundle, over HTTP and MCP:
 * LangChain's Neo4jGraph (apoc.meta.data), the Neo4j MCP server's get_neo4j_schema (apoc.meta.schema),
 * db.* and SHOW. Each answer is checked against the same facts asked in plain Cypher.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, sharedDir, startServer } from './harness.js'
import { call, httpClient } from './mcp-support.js'

interface Result {
  result: {
    status: string
    data: { columns: string[]; rows: unknown[][] } | null
    validation_errors: { code: string }[]
  }
}

const attackFile = join(sharedDir, 'data', 'stix', 'attack', 'ics-attack-18.1.json')

const NODE_PROPERTIES = `CALL apoc.meta.data()
YIELD label, other, elementType, type, property
WHERE NOT type = "RELATIONSHIP" AND elementType = "node"
WITH label AS nodeLabels, collect({property:property, type:type}) AS properties
RETURN {labels: nodeLabels, properties: properties} AS output`

const REL_PROPERTIES = `CALL apoc.meta.data()
YIELD label, other, elementType, type, property
WHERE NOT type = "RELATIONSHIP" AND elementType = "relationship"
WITH label AS nodeLabels, collect({property:property, type:type}) AS properties
RETURN {type: nodeLabels, properties: properties} AS output`

const RELATIONSHIPS = `CALL apoc.meta.data()
YIELD label, other, elementType, type, property
WHERE type = "RELATIONSHIP" AND elementType = "node"
UNWIND other AS other_node
RETURN {start: label, type: property, end: toString(other_node)} AS output`

const MCP_SCHEMA = `call apoc.meta.schema({sample: $sample_size}) yield value
UNWIND keys(value) as key
WITH key, value[key] as value
RETURN key, value { .properties, .count, .type, .relationships } as value`

describe.skipIf(!existsSync(attackFile))('schema queries on an imported ATT&CK bundle', () => {
  let server: RunningServer
  let client: Client
  const read = async (query: string, params?: Record<string, unknown>) => {
    const res = await server.request<Result>('/v1/cypher/read', {
      body: { query, ...(params ? { params } : {}) },
    })
    expect(res.status).toBe(200)
    expect(res.json.result.validation_errors).toEqual([])
    return res.json.result.data as { columns: string[]; rows: unknown[][] }
  }
  const outputs = async (query: string) =>
    (await read(query)).rows.map((row) => row[0] as Record<string, unknown>)

  beforeAll(async () => {
    // MCP tools work in the deployment's memory workspace: the same one the HTTP requests default to.
    server = await startServer({ env: { SERVICE_MEMORY_WORKSPACE_ID: 'workspace--http-default' } })
    const objects = (JSON.parse(readFileSync(attackFile, 'utf8')) as { objects: unknown[] }).objects
    const imported = await server.request('/v1/import/stix', {
      body: { bundle: { type: 'bundle', objects } },
    })
    expect(imported.status).toBe(200)
    client = await httpClient(server.url)
  }, 120_000)
  afterAll(async () => {
    await client?.close()
    await server?.stop()
  })

  it('LangChain’s apoc.meta.data queries give every label, property, type and connection', async () => {
    const labels = (await read('MATCH (n) UNWIND labels(n) AS l RETURN DISTINCT l ORDER BY l')).rows.map(
      (r) => r[0],
    )
    const nodeProps = await outputs(NODE_PROPERTIES)
    expect(nodeProps.map((o) => o.labels).sort()).toEqual(labels)
    for (const output of nodeProps) {
      const expected = await read(
        'MATCH (n) WHERE $label IN labels(n) UNWIND keys(n) AS k RETURN DISTINCT k ORDER BY k',
        { label: output.labels },
      )
      const props = output.properties as { property: string; type: string }[]
      expect(props.map((p) => p.property).sort()).toEqual(expected.rows.map((r) => r[0]))
      for (const p of props) expect(['STRING', 'INTEGER', 'FLOAT', 'BOOLEAN', 'LIST']).toContain(p.type)
    }
    const connections = (await outputs(RELATIONSHIPS)).map((o) => `${o.start}-${o.type}->${o.end}`).sort()
    const truth = await read(
      'MATCH (a)-[r]->(b) UNWIND labels(a) AS la UNWIND labels(b) AS lb RETURN DISTINCT la + "-" + type(r) + "->" + lb AS c ORDER BY c',
    )
    expect(connections).toEqual(truth.rows.map((r) => r[0]))
    const relTypes = (
      await read('CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType')
    ).rows
    const typesWithProps = (
      await read('MATCH ()-[r]->() WHERE size(keys(r)) > 0 RETURN DISTINCT type(r) AS t ORDER BY t')
    ).rows
    expect((await outputs(REL_PROPERTIES)).map((o) => o.type).sort()).toEqual(typesWithProps.map((r) => r[0]))
    expect(relTypes.length).toBeGreaterThan(0)
  })

  it('the Neo4j MCP server’s get_neo4j_schema query answers through the MCP cypher_read tool', async () => {
    // The tool pages by payload size: follow the pages to the end.
    const rows: [string, Record<string, unknown>][] = []
    let args: Record<string, unknown> | undefined = { query: MCP_SCHEMA, params: { sample_size: 1000 } }
    while (args !== undefined) {
      const page = await call(client, 'cypher_read', args)
      expect(page.status).toBe('Success')
      rows.push(...(page.rows as [string, Record<string, unknown>][]))
      const info = page.page as { complete: boolean; next?: Record<string, unknown> }
      args = info.complete ? undefined : info.next
    }
    const counts = await read('MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS c ORDER BY l')
    for (const [label, count] of counts.rows) {
      const entry = rows.find(([key]) => key === label)?.[1]
      expect(entry).toMatchObject({ type: 'node', count })
    }
    const types = await read('MATCH ()-[r]->() RETURN type(r) AS t, count(*) AS c ORDER BY t')
    for (const [type, count] of types.rows) {
      const entry = rows.find(([key]) => key === type)?.[1]
      if (entry?.type === 'relationship') expect(entry.count).toBe(count)
    }
  })

  it('db.*, dbms.components and SHOW answer as Neo4j 5 does', async () => {
    const labels = await read('CALL db.labels() YIELD label RETURN collect(label) AS labels')
    const truth = await read(
      'MATCH (n) UNWIND labels(n) AS l WITH DISTINCT l ORDER BY l RETURN collect(l) AS labels',
    )
    expect(labels.rows).toEqual(truth.rows)
    const version = await read(
      "CALL dbms.components() YIELD name, versions, edition WHERE name = 'Neo4j Kernel' RETURN versions[0] AS v",
    )
    expect(version.rows[0]?.[0]).toMatch(/^5\./)
    const nodeTypes = await read(
      'CALL db.schema.nodeTypeProperties() YIELD nodeType, propertyName RETURN count(*) AS n',
    )
    expect(nodeTypes.rows[0]?.[0]).toBeGreaterThan(0)
    expect((await read('SHOW DATABASES YIELD name, default WHERE default RETURN name')).rows).toHaveLength(1)
    const procs = await read(
      "SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'apoc.meta' RETURN collect(name) AS n",
    )
    expect(procs.rows[0]?.[0]).toEqual(['apoc.meta.data', 'apoc.meta.graphSample', 'apoc.meta.schema'])
    const write = await server.request<Result>('/v1/cypher/read', {
      body: { query: "CALL apoc.merge.node(['X'], {name: 'y'}) YIELD node RETURN node" },
    })
    expect(write.json.result.validation_errors[0]?.code).toBe('WRITE_PERMISSION_REQUIRED')
  })
})
