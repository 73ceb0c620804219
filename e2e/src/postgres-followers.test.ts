import type { ReplicationReport } from '@service/core'
import { describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'
import type { CypherEnvelope } from './kill9-support.js'

import { postgresForTests, postgresTestsRun } from './postgres-support.js'

const run = postgresTestsRun()

interface Health {
  storage_backend: string
  replication: ReplicationReport
}
interface ErrorBody {
  ok: false
  error: { code: string; message: string }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function waitFor<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe()
    if (value !== null) return value
    await sleep(100)
  }
  throw new Error(`timed out waiting for ${what}`)
}

const count = async (server: RunningServer, label: string, headers: Record<string, string> = {}) => {
  const res = await server.request<CypherEnvelope>('/v1/cypher/read', {
    body: { query: `MATCH (n:${label}) RETURN count(n) AS n` },
    headers,
  })
  expect(res.status).toBe(200)
  return (res.json.result.data!.rows[0] as [number])[0]
}

const keysOf = async (server: RunningServer, label: string) => {
  const res = await server.request<CypherEnvelope>('/v1/cypher/read', {
    body: { query: `MATCH (n:${label}) RETURN n.k AS k ORDER BY k` },
  })
  return res.json.result.data!.rows.map((r) => r[0] as string)
}

describe.runIf(run)('read followers and failover on PostgreSQL', () => {
  const { cluster, env } = postgresForTests()

  it('a follower answers reads that match the primary, reports its lag, refuses writes, reads its writes', async () => {
    cluster().createDatabase('follow')
    const primary = await startServer({ env: env('follow') })
    // Some state exists before the follower starts (recovered), some arrives while it tails.
    for (let i = 0; i < 20; i++) {
      const res = await primary.request('/v1/cypher/write', {
        body: { query: 'CREATE (:Early {k: $k})', params: { k: `e${i}` } },
      })
      expect(res.status).toBe(200)
    }
    const follower = await startServer({
      env: env('follow', {
        SERVICE_STORAGE_ROLE: 'follower',
        SERVICE_PRIMARY_URL: primary.url,
        SERVICE_READ_YOUR_WRITES_TIMEOUT_MS: '400',
      }),
    })
    try {
      expect(await count(follower, 'Early')).toBe(20)
      let lastSeq = 0
      for (let i = 0; i < 50; i++) {
        const res = await primary.request('/v1/cypher/write', {
          body: { query: 'CREATE (:Late {k: $k})-[:NEXT]->(:Tail {k: $k})', params: { k: `l${i}` } },
        })
        expect(res.status).toBe(200)
        lastSeq = Number(res.headers['x-service-commit-seq'])
      }
      // Read-your-writes: with the write's sequence the follower answers only once it has it.
      expect(await count(follower, 'Late', { 'x-service-min-seq': String(lastSeq) })).toBe(50)
      expect(await keysOf(follower, 'Tail')).toEqual(await keysOf(primary, 'Tail'))
      // Memory, seed search, explorer and TAXII reads answer on the follower as on the primary.
      const remember = await primary.request('/v1/memory/operations', {
        body: {
          contract_version: 'v1',
          idempotency_key: 'primary-remember-1',
          operation: 'remember',
          input: {
            kind: 'note',
            schema_version: '1',
            content: {
              format: 'text_and_properties',
              value: { text: 'replicated heliotrope memory', properties: {} },
            },
            provenance: [{ source_id: 'e2e', locator: 'line 1', observed_at: '2026-01-01T00:00:00Z' }],
            confidence: 0.5,
            tags: ['e2e'],
          },
        },
      })
      expect(remember.status).toBe(200)
      const rememberSeq = String(remember.headers['x-service-commit-seq'])
      const recall = {
        contract_version: 'v1',
        operation: 'recall',
        input: {
          objective: 'heliotrope',
          seed_ids: [],
          limits: {
            max_items: 20,
            max_depth: 2,
            max_payload_bytes: 100000,
            max_cost: 1000,
            timeout_ms: 5000,
            supernode_threshold: 50,
          },
        },
      }
      const onFollower = await follower.request<{ result: { result: { items: unknown[] } } }>(
        '/v1/memory/operations',
        { body: recall, headers: { 'x-service-min-seq': rememberSeq } },
      )
      expect(onFollower.status, onFollower.text).toBe(200)
      expect(JSON.stringify(onFollower.json)).toContain('replicated heliotrope memory')
      for (const [path, body] of [
        ['/v1/seed/search', { objective: 'heliotrope' }],
        ['/v1/explorer/sessions', undefined],
        ['/taxii2/', undefined],
      ] as const) {
        const options = body === undefined ? { method: 'GET' } : { body }
        const a = await primary.request(path, options)
        const b = await follower.request(path, options)
        expect({ path, status: b.status }).toEqual({ path, status: a.status })
        expect(b.status).not.toBe(503)
      }
      const exported = await follower.request<{ type: string; objects: unknown[] }>(
        '/v1/export/stix?mode=permissive',
      )
      expect(exported.status).toBe(200)

      const health = await follower.request<Health>('/health', { token: null })
      expect(health.json.storage_backend).toBe('postgres')
      expect(health.json.replication).toMatchObject({ role: 'follower', primary_url: primary.url })
      expect(health.json.replication.applied_sequence).toBeGreaterThanOrEqual(lastSeq)
      expect(health.json.replication.lag_sequences).toBe(0)
      expect(health.json.replication.lag_ms).toBe(0)
      const metrics = await follower.request('/metrics', { token: null })
      expect(metrics.text).toMatch(/service_storage_follower_lag_sequences 0/)
      expect(metrics.text).toMatch(/service_storage_follower_lag_ms \d+/)
      expect(metrics.text).toContain('service_storage_role{role="follower"} 1')

      // Writes are refused with the primary's address; nothing reaches the log.
      const write = await follower.request<ErrorBody>('/v1/cypher/write', {
        body: { query: 'CREATE (:Refused {k: 1})' },
      })
      expect(write.status).toBe(503)
      expect(write.json.error.code).toBe('STORAGE_READ_ONLY_FOLLOWER')
      expect(write.json.error.message).toContain(primary.url)
      const memory = await follower.request<ErrorBody>('/v1/memory/operations', {
        body: {
          contract_version: 'v1',
          idempotency_key: 'follower-remember-1',
          operation: 'remember',
          input: {
            kind: 'note',
            schema_version: '1',
            content: { format: 'text_and_properties', value: { text: 'on a follower', properties: {} } },
            provenance: [{ source_id: 'e2e', locator: 'line 1', observed_at: '2026-01-01T00:00:00Z' }],
            confidence: 0.5,
            tags: ['e2e'],
          },
        },
      })
      expect(memory.status, JSON.stringify(memory.json)).toBe(503)
      expect(memory.json.error.code).toBe('STORAGE_READ_ONLY_FOLLOWER')
      expect(await count(primary, 'Refused')).toBe(0)

      // A sequence the log will not reach in time: a clear 503, not a stale answer.
      const ahead = await follower.request<ErrorBody>('/v1/cypher/read', {
        body: { query: 'MATCH (n:Late) RETURN count(n) AS n' },
        headers: { 'x-service-min-seq': String(lastSeq + 1000) },
      })
      expect(ahead.status).toBe(503)
      expect(ahead.json.error.code).toBe('STORAGE_FOLLOWER_LAGGING')
      const bad = await follower.request<ErrorBody>('/v1/cypher/read', {
        body: { query: 'MATCH (n) RETURN count(n) AS n' },
        headers: { 'x-service-min-seq': 'soon' },
      })
      expect(bad.status).toBe(400)
    } finally {
      await follower.stop()
      await primary.stop()
    }
  }, 90_000)

  it('failover: the paused primary is fenced after a follower takes over, and nothing it did not acknowledge appears', async () => {
    cluster().createDatabase('failover')
    const primary = await startServer({ env: env('failover') })
    const follower = await startServer({
      env: env('failover', { SERVICE_STORAGE_ROLE: 'follower', SERVICE_STORAGE_PROMOTE: 'auto' }),
    })
    try {
      const acked: string[] = []
      for (let i = 0; i < 30; i++) {
        const res = await primary.request('/v1/cypher/write', {
          body: { query: 'CREATE (:Before {k: $k})', params: { k: `b${i}` } },
        })
        expect(res.status).toBe(200)
        acked.push(`b${i}`)
      }
      primary.process.kill('SIGSTOP')
      // Writes sent to the paused primary wait in its socket backlog; none is acknowledged before the takeover.
      const paused = Array.from({ length: 8 }, (_, i) =>
        primary
          .request<ErrorBody>('/v1/cypher/write', {
            body: { query: 'CREATE (:Paused {k: $k})', params: { k: `p${i}` } },
          })
          .catch((error: Error) => ({
            status: 0,
            json: { ok: false, error: { code: 'NONE', message: error.message } },
          })),
      )
      await waitFor('the follower to take over', async () => {
        const h = await follower.request<Health>('/health', { token: null })
        return h.json.replication.role === 'primary' ? h : null
      })
      const after = await follower.request('/v1/cypher/write', {
        body: { query: 'CREATE (:After {k: "a0"})' },
      })
      expect(after.status).toBe(200)
      primary.process.kill('SIGCONT')

      const answers = await Promise.all(paused)
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.json)).not.toBe(200)
      // The old primary says why it refuses writes.
      const fenced = await waitFor('the old primary to report fencing', async () => {
        const h = await primary.request<Health>('/health', { token: null })
        return h.json.replication.role === 'fenced' ? h : null
      })
      expect(fenced.json.replication.reason).toMatch(/another primary/)
      const refused = await primary.request<ErrorBody>('/v1/cypher/write', {
        body: { query: 'CREATE (:Paused {k: "late"})' },
      })
      expect(refused.status).toBe(503)
      expect(refused.json.error.code).toBe('STORAGE_FENCED')

      // The new primary holds every acknowledged write and none of the paused ones.
      expect(await keysOf(follower, 'Before')).toEqual([...acked].sort())
      expect(await count(follower, 'Paused')).toBe(0)
      expect(await count(follower, 'After')).toBe(1)
      const health = await follower.request<Health>('/health', { token: null })
      // 2 at the takeover; a busy machine may pause the new primary past its lease once, which renews it.
      expect(health.json.replication.epoch).toBeGreaterThanOrEqual(2)
    } finally {
      primary.process.kill('SIGCONT')
      await primary.kill()
      await follower.stop()
    }
  }, 90_000)
})
