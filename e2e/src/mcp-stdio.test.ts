import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, serverMain, startServer, TOKEN } from './harness.js'
import { call, fact, type Structured } from './mcp-support.js'

/** `service-http-server mcp` spawned by the official client's stdio transport. */
async function stdioClient(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'stdio-agent', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [serverMain, 'mcp'],
      env: {
        PATH: process.env.PATH ?? '',
        SERVICE_SEED_EMBEDDING_PROVIDER: 'none',
        SERVICE_LOG_LEVEL: 'warn',
        ...env,
      },
      stderr: 'pipe',
    }),
  )
  return client
}

describe('service-http-server mcp, embedded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-stdio-'))
  const env = { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: join(dir, 'graph') }
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('serves the tools on the configured storage, with no HTTP token needed, and the writes persist', async () => {
    const client = await stdioClient(env)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['remember', 'recall', 'graph_schema']))
    expect(tools.map((t) => t.name)).not.toContain('cypher_write')
    const remembered = await call(client, 'remember', fact(7))
    const replay = await call(client, 'remember', fact(7))
    expect(replay.receipt.replayed).toBe(true)
    const trace = await call(client, 'trace', { target: { kind: 'memory', id: remembered.record.id } })
    expect(trace.versions[0].agent_id).toBe('stdio-agent')
    const timeline = await call(client, 'explorer_timeline')
    expect(timeline.boundaries.map((b: Structured) => b.label)).toContain('memory remember')
    await client.close()

    // A second process on the same directory sees the memory: the stdio server wrote through the WAL.
    const again = await stdioClient(env)
    const recalled = await call(again, 'recall', { objective: 'falcon dropper' })
    expect(recalled.items.map((i: Structured) => i.record.id)).toContain(remembered.record.id)
    await again.close()
  })
})

describe('service-http-server mcp, remote', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('forwards every tool to the running server through @service/client', async () => {
    const client = await stdioClient({
      SERVICE_MCP_REMOTE_URL: server.url,
      SERVICE_MCP_REMOTE_AUTH_TOKEN: TOKEN,
    })
    const remembered = await call(client, 'remember', fact(11))
    expect((await call(client, 'remember', fact(11))).receipt.replayed).toBe(true)
    const recalled = await call(client, 'recall', { objective: 'falcon dropper server 11' })
    expect(recalled.items.map((i: Structured) => i.record.id)).toContain(remembered.record.id)
    const schema = await call(client, 'graph_schema')
    expect(schema.labels).toContainEqual({ label: 'Memory', count: 1 })
    const rows = await call(client, 'cypher_read', { query: 'MATCH (m:Memory) RETURN m.identity_key' })
    expect(rows.rows).toEqual([['fact-11']])
    // The server's own state shows the write, and the session this MCP session started there audits Cypher.
    const direct = await server.request<Structured>('/v1/cypher/read', {
      body: { query: 'MATCH (m:Memory) RETURN count(m)', workspace_id: 'workspace--standalone-default' },
    })
    expect(direct.json.result.data.rows).toEqual([[1]])
    const timeline = await call(client, 'explorer_timeline')
    const logs = await server.request<Structured>(`/v1/sessions/${timeline.session_id}/logs`)
    expect(JSON.stringify(logs.json)).toContain('MATCH (m:Memory) RETURN m.identity_key')
    await client.close()
  })

  it('reports a wrong token as the server’s contract error, never the token', async () => {
    const client = await stdioClient({
      SERVICE_MCP_REMOTE_URL: server.url,
      SERVICE_MCP_REMOTE_AUTH_TOKEN: 'wrong-token',
    })
    const result = await client.callTool({ name: 'recall', arguments: { objective: 'x' } })
    expect(result.isError).toBe(true)
    expect((result.structuredContent as Structured).error.code).toBe('AUTH_INVALID')
    expect(JSON.stringify(result)).not.toContain('wrong-token')
    await client.close()
  })
})
