import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { TOKEN } from './harness.js'

// biome-ignore lint/suspicious/noExplicitAny: structured content is walked as JSON
export type Structured = any

/** The official MCP client over Streamable HTTP, with the bearer token (and any other headers). */
export async function httpClient(
  baseUrl: string,
  options: { name?: string; headers?: Record<string, string> } = {},
): Promise<Client> {
  const client = new Client({ name: options.name ?? 'e2e-agent', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}`, ...options.headers } },
  })
  await client.connect(transport)
  return client
}

/** Calls a tool and returns its structured content, failing loudly on an error result. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Structured> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}`)
  return result.structuredContent
}

/** Calls a tool that must fail with a contract error; returns the code. */
export async function refusal(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (!result.isError) throw new Error(`${name} succeeded, a refusal was expected`)
  return (result.structuredContent as Structured).error.code
}

export const fact = (i: number) => ({
  kind: 'fact',
  schema_version: '1',
  identity_key: `fact-${i}`,
  content: {
    format: 'text',
    value: `Fact ${i}: the falcon ${['loader', 'beacon', 'dropper', 'implant'][i % 4]} number ${i} talks to server ${i}`,
  },
  provenance: [{ source_id: `report-${i}`, locator: `p. ${i}` }],
  tags: ['falcon'],
})
