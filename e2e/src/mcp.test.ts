import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ErrorBody, type RunningServer, startServer } from './harness.js'
import { call, fact, httpClient, refusal, type Structured } from './mcp-support.js'

const READ_TOOLS = [
  'recall',
  'seed_search',
  'cypher_read',
  'graph_schema',
  'stix_export',
  'explorer_timeline',
  'explorer_graph',
].sort()

let server: RunningServer
let client: Client

beforeAll(async () => {
  server = await startServer({ env: { SERVICE_MCP_ALLOW_CYPHER_WRITE: 'true' } })
  client = await httpClient(server.url, { name: 'falcon-agent' })
})
afterAll(async () => {
  await client?.close()
  await server?.stop()
})

describe('MCP over Streamable HTTP at /mcp', () => {
  it('lists every granted tool with its schemas and hints', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'remember',
        'relate',
        'recall',
        'update',
        'trace',
        'forget',
        'consolidate',
        'seed_search',
        'cypher_read',
        'cypher_write',
        'graph_schema',
        'stix_import',
        'stix_export',
        'explorer_timeline',
        'explorer_graph',
      ].sort(),
    )
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema?.type).toBe('object')
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean')
      expect(typeof tool.annotations?.destructiveHint).toBe('boolean')
      expect(typeof tool.annotations?.idempotentHint).toBe('boolean')
    }
    const remember = tools.find((t) => t.name === 'remember')
    // The contract's own field names and the optional key, with the replay rule said in the description.
    expect(Object.keys(remember?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['kind', 'schema_version', 'content', 'provenance', 'tags', 'idempotency_key']),
    )
    expect(remember?.inputSchema.required).not.toContain('idempotency_key')
    expect(remember?.description).toContain('replayed: true')
  })

  it('runs the agent scenario, every call in the session audit log and each write in its timeline', async () => {
    const ids: string[] = []
    for (let i = 0; i < 20; i++) {
      const out = await call(client, 'remember', fact(i))
      expect(out.receipt.replayed).toBe(false)
      ids.push(out.record.id)
    }
    for (let i = 0; i < 19; i += 2)
      await call(client, 'relate', {
        source_id: ids[i],
        target_id: ids[i + 1],
        kind: 'precedes',
        provenance: [{ source_id: 'timeline-report' }],
        lifecycle: 'active',
      })

    // A small budget: five items a page, then the next page from page.next.
    const first = await call(client, 'recall', {
      objective: 'falcon loader beacon',
      limits: { max_items: 5 },
    })
    expect(first.items).toHaveLength(5)
    expect(first.page.complete).toBe(false)
    expect(first.page.truncated).toContain('items')
    const second = await call(client, 'recall', first.page.next)
    expect(second.items.length).toBeGreaterThan(0)
    const seen = new Set(first.items.map((i: Structured) => i.record.id))
    for (const item of second.items) expect(seen.has(item.record.id)).toBe(false)

    const trace = await call(client, 'trace', { target: { kind: 'memory', id: ids[3] } })
    expect(trace.versions[0].agent_id).toBe('falcon-agent')

    await call(client, 'update', {
      target: { kind: 'memory', id: ids[4] },
      expected_version: 1,
      patch: { add_tags: ['reviewed'] },
    })
    expect(
      await refusal(client, 'update', {
        target: { kind: 'memory', id: ids[4] },
        expected_version: 1,
        patch: { add_tags: ['again'] },
      }),
    ).toBe('VERSION_CONFLICT')

    await call(client, 'forget', { memory_id: ids[5], mode: 'tombstone', reason: 'wrong' })
    const proposal = await call(client, 'consolidate', {
      mode: { mode: 'propose' },
      memory_ids: [ids[6], ids[7]],
      reason: 'same campaign',
      preserve_disagreements: true,
    })
    expect(proposal.proposal_id).toMatch(/^consolidation--/)
    const applied = await call(client, 'consolidate', {
      mode: { mode: 'apply_approved', proposal_id: proposal.proposal_id, approval_policy: 'analyst-review' },
      memory_ids: [ids[6], ids[7]],
      reason: 'same campaign',
      preserve_disagreements: true,
    })
    expect(applied.receipt.committed_id).toBeDefined()

    const timeline = await call(client, 'explorer_timeline')
    const sessionId = timeline.session_id
    const labels = timeline.boundaries.map((b: Structured) => b.label)
    for (const op of ['remember', 'relate', 'update', 'forget', 'consolidate'])
      expect(labels).toContain(`memory ${op}`)
    // 20 remembers + 10 relates + update + forget + apply: each a timeshot of the session.
    expect(timeline.total_boundaries).toBeGreaterThanOrEqual(33)

    const logs = await server.request<Structured>(`/v1/sessions/${sessionId}/logs?limit=5000`)
    expect(logs.status).toBe(200)
    const entries = logs.json.result.entries ?? logs.json.result.logs ?? logs.json.result
    const events = (entries as Structured[]).map((e) => e.fields)
    const tools = events.filter((f) => f.event === 'mcp_tool_input').map((f) => f.tool)
    const expected = [
      ...Array(20).fill('remember'),
      ...Array(10).fill('relate'),
      'recall',
      'recall',
      'trace',
      'update',
      'update',
      'forget',
      'consolidate',
      'consolidate',
      'explorer_timeline',
    ]
    expect(tools).toEqual(expected)
    const outcomes = events.filter((f) => f.event === 'mcp_tool_output').map((f) => f.outcome)
    expect(outcomes.filter((o) => o === 'VERSION_CONFLICT')).toHaveLength(1)
    expect(events.filter((f) => f.event === 'memory_audit_input')).toHaveLength(expected.length - 1)
    // The session is the agent's: actor kind agent, agent from the client's name.
    const sessions = await server.request<Structured>('/v1/explorer/sessions')
    const mine = sessions.json.result.sessions.find((s: Structured) => s.session_id === sessionId)
    expect(mine.actor_kind).toBe('agent')
  })

  it('replays a retried identical remember without a key, and keeps a given key apart', async () => {
    const input = { ...fact(100), identity_key: 'retry-me' }
    const first = await call(client, 'remember', input)
    const again = await call(client, 'remember', input)
    expect(again.receipt).toMatchObject({ committed_id: first.receipt.committed_id, replayed: true })
    expect(again.record.version).toBe(first.record.version)
    const keyed = await call(client, 'remember', { ...input, idempotency_key: 'explicit-1' })
    expect(keyed.receipt.replayed).toBe(false)
    expect(keyed.record.version).toBe(first.record.version + 1)
  })

  it('answers contract errors as tool results and malformed calls as protocol errors', async () => {
    expect(await refusal(client, 'trace', { target: { kind: 'memory', id: 'node--999999' } })).toBe(
      'NOT_FOUND',
    )
    expect(await refusal(client, 'recall', { objective: 'x', limits: { max_depth: 17 } })).toBe(
      'INVALID_BUDGET',
    )
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/unknown tool/)
    await expect(
      client.callTool({ name: 'remember', arguments: { ...fact(1), kind: undefined } }),
    ).rejects.toThrow(/arguments.kind is required/)
    await expect(
      client.callTool({ name: 'remember', arguments: { ...fact(1), workspace_id: 'other' } }),
    ).rejects.toThrow(/workspace_id is not a field/)
  })

  it('serves the graph tools within their budgets', async () => {
    const schema = await call(client, 'graph_schema')
    expect(schema.labels).toContainEqual({ label: 'Memory', count: expect.any(Number) })
    expect(schema.page.complete).toBe(true)
    const rows = await call(client, 'cypher_read', {
      query: 'MATCH (m:Memory) RETURN m.text AS text ORDER BY text',
      max_payload_bytes: 1024,
    })
    expect(rows.page.complete).toBe(false)
    expect(Buffer.byteLength(JSON.stringify(rows))).toBeLessThanOrEqual(1024 + 512)
    const next = await call(client, 'cypher_read', rows.page.next)
    expect(next.rows[0]).not.toEqual(rows.rows[0])
    const rejected = await call(client, 'cypher_read', { query: 'CREATE (:X)' })
    expect(rejected.status).toBe('Rejected')
    const written = await call(client, 'cypher_write', {
      query: 'CREATE (:Tool {name: $n}) RETURN 1',
      params: { n: 'nmap' },
    })
    expect(written.status).toBe('Success')
    const temporal = await call(client, 'cypher_read', {
      query: "RETURN $d + duration('P1D') AS next",
      params: { d: { $date: '2024-05-01' } },
    })
    expect(temporal.rows).toEqual([[{ $date: '2024-05-02' }]])
    const seeds = await call(client, 'seed_search', { objective: 'falcon implant', mode: 'full_text' })
    expect(seeds.candidates.length).toBeGreaterThan(0)
    const graph = await call(client, 'explorer_graph', { max_nodes: 3 })
    expect(graph.nodes).toHaveLength(3)
    expect(graph.page).toMatchObject({ complete: false, truncated: expect.arrayContaining(['nodes']) })
  })

  it('imports and exports STIX a page at a time', async () => {
    const objects = Array.from({ length: 30 }, (_, i) => ({
      type: 'malware',
      spec_version: '2.1',
      id: `malware--00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      created: '2024-01-01T00:00:00.000Z',
      modified: '2024-01-01T00:00:00.000Z',
      name: `Falcon ${i}`,
      is_family: true,
      description: 'x'.repeat(200),
    }))
    const imported = await call(client, 'stix_import', {
      bundle: { type: 'bundle', id: 'bundle--00000000-0000-4000-8000-000000000001', objects },
    })
    expect(imported.processed_objects).toBe(30)
    let offset = 0
    const ids: string[] = []
    for (let pages = 0; pages < 20; pages++) {
      const page = await call(client, 'stix_export', { offset, max_payload_bytes: 4096 })
      ids.push(...page.objects.map((o: Structured) => o.id))
      if (page.page.complete) break
      offset = page.page.next.offset
    }
    expect(ids.filter((id) => id.startsWith('malware--'))).toHaveLength(30)
  })
})

describe('the /mcp boundary', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  }
  const headers = { accept: 'application/json, text/event-stream' }

  it('needs the bearer token: 401 in the service envelope', async () => {
    const res = await server.request<ErrorBody>('/mcp', { body: initialize, headers, token: null })
    expect(res.status).toBe(401)
    expect(res.json.error.code).toBe('AUTH_REQUIRED')
    const wrong = await server.request<ErrorBody>('/mcp', { body: initialize, headers, token: 'nope' })
    expect(wrong.status).toBe(401)
  })

  it('refuses a foreign Origin or Host (DNS rebinding)', async () => {
    const origin = await server.request<ErrorBody>('/mcp', {
      body: initialize,
      headers: { ...headers, origin: 'http://evil.example:8080' },
    })
    expect(origin.status).toBe(403)
    expect(origin.json.error.code).toBe('ORIGIN_NOT_ALLOWED')
    const host = await server.request<ErrorBody>('/mcp', {
      body: initialize,
      headers: { ...headers, host: 'evil.example' },
    })
    expect(host.status).toBe(403)
    expect(host.json.error.code).toBe('HOST_NOT_ALLOWED')
    const local = await server.request('/mcp', {
      body: initialize,
      headers: { ...headers, origin: `http://localhost:${server.port}` },
    })
    expect(local.status).toBe(200)
    expect(local.headers['mcp-session-id']).toBeDefined()
  })

  it('needs a session for anything but initialize, and knows closed ones', async () => {
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' }
    const none = await server.request<ErrorBody>('/mcp', { body: list, headers })
    expect(none.status).toBe(400)
    expect(none.json.error.code).toBe('MCP_SESSION_REQUIRED')
    const unknown = await server.request<ErrorBody>('/mcp', {
      body: list,
      headers: { ...headers, 'mcp-session-id': 'no-such-session' },
    })
    expect(unknown.status).toBe(404)
    expect(unknown.json.error.code).toBe('MCP_SESSION_NOT_FOUND')
  })
})

describe('a deployment granting read only', () => {
  let readOnly: RunningServer
  let reader: Client
  beforeAll(async () => {
    readOnly = await startServer({
      env: { SERVICE_MEMORY_PERMISSIONS: 'read', SERVICE_MCP_ALLOW_CYPHER_WRITE: 'true' },
    })
    reader = await httpClient(readOnly.url)
  })
  afterAll(async () => {
    await reader?.close()
    await readOnly?.stop()
  })

  it('lists only read tools and refuses the others if called anyway', async () => {
    const { tools } = await reader.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(READ_TOOLS)
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true)
    expect(await refusal(reader, 'remember', fact(1))).toBe('PERMISSION_DENIED')
    expect(await refusal(reader, 'cypher_write', { query: 'CREATE (:X)' })).toBe('PERMISSION_DENIED')
  })
})
