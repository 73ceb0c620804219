import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type ErrorBody, type RunningServer, startServer } from './harness.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are walked as JSON
type Body = any

const PATH = '/v1/memory/operations'
let keys = 0
const send = (
  server: RunningServer,
  operation: string,
  input: unknown,
  key: string | null = `ids-${++keys}`,
) =>
  server.request<Body>(PATH, {
    body: { contract_version: 'v1', operation, input, ...(key === null ? {} : { idempotency_key: key }) },
  })
const remember = async (server: RunningServer, text: string): Promise<string> => {
  const res = await send(server, 'remember', {
    kind: 'note',
    schema_version: '1',
    content: { format: 'text', value: text },
    provenance: [],
    tags: [],
  })
  expect(res.status).toBe(200)
  return res.json.result.result.record.id
}
const relate = async (server: RunningServer, source_id: string, target_id: string): Promise<string> => {
  const res = await send(server, 'relate', {
    source_id,
    target_id,
    kind: 'follows',
    properties: {},
    provenance: [{ source_id: 'ids-evidence' }],
    lifecycle: 'active',
  })
  expect(res.status).toBe(200)
  return res.json.result.result.relationship.id
}
const notFound = (res: { status: number; json: unknown }) =>
  expect({ status: res.status, code: (res.json as ErrorBody).error?.code }).toEqual({
    status: 404,
    code: 'NOT_FOUND',
  })
const limits = {
  max_items: 20,
  max_depth: 2,
  max_payload_bytes: 100000,
  max_cost: 1000,
  timeout_ms: 5000,
  supernode_threshold: 50,
}

describe('memory ids across workspaces', () => {
  it('an id from another workspace answers NOT_FOUND after a restart into a workspace with records of its own', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'memory-ids-e2e-')), 'graph')
    const env = { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir, SERVICE_LOG_LEVEL: 'warn' }
    let server = await startServer({ env: { ...env, SERVICE_MEMORY_WORKSPACE_ID: 'workspace--a' } })
    const a1 = await remember(server, 'alpha one')
    const a2 = await remember(server, 'alpha two')
    const aRel = await relate(server, a1, a2)
    await server.stop()

    server = await startServer({ env: { ...env, SERVICE_MEMORY_WORKSPACE_ID: 'workspace--b' } })
    const b1 = await remember(server, 'beta one')
    const b2 = await remember(server, 'beta two')
    const b3 = await remember(server, 'beta three')
    const bRel = await relate(server, b1, b2)
    await server.stop()
    // Every id is new: none of B's records took an id A already had.
    expect(new Set([a1, a2, b1, b2, b3]).size).toBe(5)
    expect(bRel).not.toBe(aRel)

    server = await startServer({ env: { ...env, SERVICE_MEMORY_WORKSPACE_ID: 'workspace--b' } })
    try {
      notFound(await send(server, 'trace', { target: { kind: 'memory', id: a1 } }))
      notFound(await send(server, 'trace', { target: { kind: 'relationship', id: aRel } }))
      notFound(
        await send(server, 'update', { target: { kind: 'memory', id: a2 }, patch: { add_tags: ['x'] } }),
      )
      notFound(
        await send(server, 'update', {
          target: { kind: 'relationship', id: aRel },
          patch: { confidence: 0.9 },
        }),
      )
      notFound(await send(server, 'forget', { memory_id: a1, mode: 'tombstone', reason: 'r' }))
      notFound(
        await send(server, 'relate', {
          source_id: a1,
          target_id: b1,
          kind: 'follows',
          properties: {},
          provenance: [],
          lifecycle: 'active',
        }),
      )
      // A's id as a seed is no seed at all; B's own ids still answer after the restart.
      const recall = await send(server, 'recall', { objective: 'zzzz', seed_ids: [a1, a2], limits }, null)
      expect(recall.status).toBe(200)
      expect(recall.json.result.result.items).toEqual([])
      const own = await send(server, 'trace', { target: { kind: 'memory', id: b3 } })
      expect(own.status).toBe(200)
      // And a record made after the restart does not reuse an id of either workspace.
      const b4 = await remember(server, 'beta four')
      expect([a1, a2, b1, b2, b3]).not.toContain(b4)
    } finally {
      await server.stop()
    }
  })
})
