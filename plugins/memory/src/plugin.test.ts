import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Engine, MEMORY_PERMISSIONS, openEngine } from '@service/core'
import { injectStorageFailure } from '@service/core/testing'
import { engineDecorator } from '@service/plugin-engine'
import { correlationIdOf, errorsPlugin, validatorCompiler } from '@service/plugin-errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import memoryPlugin from './plugin.js'

let engine: Engine
let app: FastifyInstance
const dirs: string[] = []
afterEach(async () => {
  await app?.close()
  await engine?.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const seen: [string, string][] = []

async function build(persistent = false) {
  const dir = mkdtempSync(join(tmpdir(), 'memory-plugin-'))
  dirs.push(dir)
  engine = await openEngine(persistent ? { storage: { mode: 'persistent', dir } } : {})
  app = Fastify({ genReqId: correlationIdOf, requestIdHeader: false })
  app.setValidatorCompiler(validatorCompiler())
  await app.register(errorsPlugin)
  await app.register(engineDecorator, { engine })
  await app.register(memoryPlugin, {
    context: {
      workspaceId: 'workspace--plugin',
      actorId: 'actor--plugin',
      agentId: null,
      sessionId: 'session--standalone-api',
      permissions: MEMORY_PERMISSIONS,
    },
    onOperation: (operation, outcome) => seen.push([operation, outcome]),
  })
  await app.ready()
}

const remember = {
  contract_version: 'v1',
  idempotency_key: 'plugin-key',
  operation: 'remember',
  input: {
    kind: 'note',
    schema_version: '1',
    content: { format: 'text', value: 'through the route' },
    provenance: [{ source_id: 'src' }],
    tags: [],
  },
}

const post = (payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/v1/memory/operations',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  })

describe('POST /v1/memory/operations', () => {
  it('answers exactly what the embedded door answers, under the trusted context and the request correlation id', async () => {
    await build()
    const res = await post(remember, { 'x-request-id': 'corr-plugin-1' })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.result.result.receipt.audit_correlation_id).toBe('corr-plugin-1')
    const embedded = await engine.memory.execute(remember, {
      workspace_id: 'workspace--plugin',
      actor_id: 'actor--plugin',
      agent_id: null,
      session_id: 'session--standalone-api',
      permissions: MEMORY_PERMISSIONS,
      correlation_id: 'other',
    })
    expect(embedded).toEqual({
      ...body,
      result: {
        ...body.result,
        result: { ...body.result.result, receipt: { ...body.result.result.receipt, replayed: true } },
      },
    })
    expect(seen).toContainEqual(['remember', 'ok'])
  })

  it('refuses a body that is not JSON with INVALID_REQUEST, and unknown fields before any schema default', async () => {
    await build()
    const bad = await post('{"contract_version": ')
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error.code).toBe('INVALID_REQUEST')
    const budget = await post({
      contract_version: 'v1',
      operation: 'recall',
      input: {
        objective: 'x',
        seed_ids: [],
        limits: {
          max_items: 0,
          max_depth: 1,
          max_payload_bytes: 1,
          max_cost: 1,
          timeout_ms: 1,
          supernode_threshold: 1,
        },
      },
    })
    expect(budget.statusCode).toBe(422)
    expect(budget.json().error.code).toBe('INVALID_BUDGET')
    expect(seen).toContainEqual(['recall', 'INVALID_BUDGET'])
  })

  it('answers 503 DURABILITY_FAILED when the WAL append fails: nothing published, no receipt', async () => {
    await build(true)
    injectStorageFailure(engine)
    const res = await post(remember)
    expect(res.statusCode).toBe(503)
    expect(res.json().error.code).toBe('DURABILITY_FAILED')
    const count = await engine.readGraph('workspace--plugin', (store) => store.nodeCount())
    expect(count).toBe(0)
  })
})
