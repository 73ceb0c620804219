import { describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'
import { type CypherEnvelope, expectWhole, killNineRounds, writeUntilStopped } from './kill9-support.js'

import { postgresForTests, postgresTestsRun } from './postgres-support.js'

const run = postgresTestsRun()
const ROUNDS = Number(process.env.PG_KILL9_ROUNDS ?? 6)

interface Health {
  storage_mode: string
  storage_backend: string
  replication: { backend: string; role: string; epoch: number | null; reason: string | null } | null
  storage_faults: { state: string; reason: string | null }
}

describe.runIf(run)('PostgreSQL as the durable store', () => {
  const { cluster, env } = postgresForTests()

  it(
    `keeps every acknowledged write under kill -9 and never a half-applied one (${ROUNDS} rounds)`,
    async ({ signal }) => {
      cluster().createDatabase('kill9')
      await killNineRounds(env('kill9'), ROUNDS, signal)
    },
    120_000 + ROUNDS * 10_000,
  )

  it('reports the backend, refuses a second primary, and keeps the password out of the output', async () => {
    // The cluster trusts local connections, so the password is never checked: only its redaction is.
    const url = cluster().createDatabase('owner').replace('postgres@', 'postgres:pg-secret-word@')
    const withPassword = env('owner', { SERVICE_STORAGE_POSTGRES_URL: url })
    const server = await startServer({ env: { ...withPassword, SERVICE_LOG_LEVEL: 'info' } })
    try {
      const health = await server.request<Health>('/health', { token: null })
      expect(health.json.storage_mode).toBe('persistent')
      expect(health.json.storage_backend).toBe('postgres')
      expect(health.json.replication).toMatchObject({ backend: 'postgres', role: 'primary', epoch: 1 })
      const write = await server.request<CypherEnvelope>('/v1/cypher/write', {
        body: { query: 'CREATE (:Owner {k: 1})' },
      })
      expect(write.status).toBe(200)
      expect(Number(write.headers['x-service-commit-seq'])).toBeGreaterThan(0)
      // A second primary on the same database cannot start: the ownership lock is taken.
      const second = await startServer({ env: withPassword, waitReady: false })
      const code = await second.exited
      expect(code).toBe(4)
      expect(second.stderr()).toContain('STORAGE_OWNED_BY_ANOTHER_PRIMARY')
      expect(server.stdout() + server.stderr() + second.stdout() + second.stderr()).not.toContain(
        'pg-secret-word',
      )
    } finally {
      await server.stop()
    }
  }, 60_000)

  it('PostgreSQL restarted under load: writes fail clearly while it is down, nothing half-applied, resumes after', async () => {
    cluster().createDatabase('restart')
    const server: RunningServer = await startServer({ env: env('restart') })
    const acked = new Set<string>()
    const refused = new Map<string, number>()
    try {
      const stop = { now: false }
      const load = writeUntilStopped(server, 0, acked, stop, refused)
      await new Promise((r) => setTimeout(r, 500))
      cluster().stop()
      // While the database is down: writes are refused with a clear code.
      await new Promise((r) => setTimeout(r, 1000))
      const down = await server.request<{ ok: boolean; error: { code: string; message: string } }>(
        '/v1/cypher/write',
        { body: { query: 'CREATE (:Down {k: 1})' } },
      )
      expect(down.status).toBe(503)
      expect(['DURABILITY_FAILED', 'STORAGE_UNAVAILABLE']).toContain(down.json.error.code)
      const health = await server.request<Health>('/health', { token: null })
      expect(health.json.storage_faults.state).not.toBe('healthy')
      cluster().start()
      // The service resumes by itself once the database answers: its reload retries back off from 1 s, and a
      // busy machine stretches each attempt, so the bound is one minute.
      const deadline = Date.now() + 60_000
      let resumed = false
      while (Date.now() < deadline) {
        const res = await server.request<CypherEnvelope>('/v1/cypher/write', {
          body: { query: 'CREATE (:Back {k: 1})' },
        })
        if (res.status === 200) {
          resumed = true
          break
        }
        await new Promise((r) => setTimeout(r, 200))
      }
      expect(resumed).toBe(true)
      await new Promise((r) => setTimeout(r, 300))
      stop.now = true
      await load
      expect(refused.size).toBeGreaterThan(0)
      await expectWhole(server, 1, acked)
    } finally {
      await server.stop()
    }
    // And after a restart of the server, the same: everything acknowledged, nothing half-applied.
    const again = await startServer({ env: env('restart') })
    try {
      await expectWhole(again, 1, acked)
    } finally {
      await again.stop()
    }
  }, 180_000)
})
