// `pnpm bench mcp`: recall through MCP (the official client over Streamable HTTP at /mcp) beside the same recall
// over REST (POST /v1/memory/operations), same server, same graph, same limits, interleaved call by call so
// both see the same machine state. Prints p50/p95 of each and what MCP adds to p95 (target: at most 30 %).
// Needs `pnpm build` first (reads dist).
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { BENCH_TOKEN, pinning, startService } from './lib/server.mjs'

const MEMORIES = Number(process.env.MCP_BENCH_MEMORIES ?? 3_000)
const RECALLS = Number(process.env.MCP_BENCH_RECALLS ?? 400)
const WORDS = [
  'loader',
  'beacon',
  'dropper',
  'implant',
  'falcon',
  'harrier',
  'kestrel',
  'osprey',
  'merlin',
  'hobby',
]
// The MCP tool's prompt-sized defaults, given explicitly to the REST call so both do the same work.
const LIMITS = {
  max_items: 50,
  max_depth: 2,
  max_payload_bytes: 32 * 1024,
  max_cost: 10_000,
  timeout_ms: 5_000,
  supernode_threshold: 1_000,
}

let state = 7
const rand = (n) => {
  state = (state + 0x6d2b79f5) | 0
  let t = Math.imul(state ^ (state >>> 15), 1 | state)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)
}
const pct = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]
const sentence = () => Array.from({ length: 8 }, () => WORDS[rand(WORDS.length)]).join(' ')

const service = await startService({}, pinning())
const post = async (body) => {
  const res = await fetch(`${service.url}/v1/memory/operations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json = await res.json()
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(json)}`)
  return json
}
try {
  process.stderr.write(`loading ${MEMORIES} memories and ${MEMORIES * 2} relationships over REST\n`)
  const ids = []
  for (let i = 0; i < MEMORIES; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, MEMORIES - i) }, (_, j) =>
        post({
          contract_version: 'v1',
          operation: 'remember',
          idempotency_key: `bench-${i + j}`,
          input: {
            kind: 'observation',
            schema_version: '1',
            content: { format: 'text', value: sentence() },
            provenance: [{ source_id: `bench-${i + j}` }],
            tags: ['bench'],
          },
        }),
      ),
    )
    ids.push(...batch.map((b) => b.result.result.record.id))
  }
  for (let i = 0; i < MEMORIES * 2; i += 50)
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        post({
          contract_version: 'v1',
          operation: 'relate',
          idempotency_key: `bench-rel-${i + j}`,
          input: {
            source_id: ids[rand(ids.length)],
            target_id: ids[rand(ids.length)],
            kind: 'related',
            provenance: [{ source_id: 'bench' }],
            lifecycle: 'active',
          },
        }),
      ),
    )

  const client = new Client({ name: 'bench', version: '1' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${BENCH_TOKEN}` } },
    }),
  )
  const objectives = Array.from(
    { length: 50 },
    () => `${WORDS[rand(10)]} ${WORDS[rand(10)]} ${WORDS[rand(10)]}`,
  )
  const rest = []
  const mcp = []
  let restItems = 0
  let mcpItems = 0
  for (let i = 0; i < RECALLS + 20; i++) {
    const objective = objectives[i % objectives.length]
    const t0 = performance.now()
    const r = await post({
      contract_version: 'v1',
      operation: 'recall',
      input: { objective, limits: LIMITS },
    })
    const t1 = performance.now()
    const m = await client.callTool({ name: 'recall', arguments: { objective } })
    const t2 = performance.now()
    if (m.isError) throw new Error(JSON.stringify(m.structuredContent))
    // The first 20 of each warm both paths up.
    if (i < 20) continue
    rest.push(t1 - t0)
    mcp.push(t2 - t1)
    restItems += r.result.result.items.length
    mcpItems += m.structuredContent.items.length
  }
  await client.close()
  const overhead = (pct(mcp, 95) / pct(rest, 95) - 1) * 100
  const f = (x) => x.toFixed(2)
  console.log(
    `\nrecall on ${MEMORIES} memories, ${MEMORIES * 2} relationships; ${RECALLS} calls each, interleaved`,
  )
  console.log('| path | p50 ms | p95 ms | items/call |')
  console.log('|---|---|---|---|')
  console.log(
    `| REST POST /v1/memory/operations | ${f(pct(rest, 50))} | ${f(pct(rest, 95))} | ${(restItems / RECALLS).toFixed(1)} |`,
  )
  console.log(
    `| MCP tools/call recall (/mcp) | ${f(pct(mcp, 50))} | ${f(pct(mcp, 95))} | ${(mcpItems / RECALLS).toFixed(1)} |`,
  )
  console.log(
    `\nMCP adds ${overhead.toFixed(1)} % to p95 (target <= 30 %): ${overhead <= 30 ? 'met' : 'NOT met'}`,
  )
} finally {
  await service.stop()
}
