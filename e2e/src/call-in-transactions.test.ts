/**
 * `CALL { … } IN TRANSACTIONS OF n ROWS` commits batch by batch: a real server killed with SIGKILL in the
 * middle of such a write holds, after restart, whole batches only (never part of one), from the first on.
 * Schema commands are durable the same way: a constraint survives a kill and is enforced after it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type BatchCount, killMidBatches } from './batch-kill.js'
import { type RunningServer, startServer } from './harness.js'
import type { CypherEnvelope } from './kill9-support.js'

const ROWS = 40_000
const BATCH = 200
const WRITE = `UNWIND range(1, ${ROWS}) AS i CALL (i) { CREATE (:Batch {i: i}) } IN TRANSACTIONS OF ${BATCH} ROWS`

async function batchCount(server: RunningServer): Promise<BatchCount> {
  const res = await server.request<CypherEnvelope>('/v1/cypher/read', {
    body: { query: 'MATCH (b:Batch) RETURN count(b) AS c, min(b.i) AS lo, max(b.i) AS hi' },
  })
  const [count, min, max] = (res.json.result.data?.rows[0] ?? [0, null, null]) as [
    number,
    number | null,
    number | null,
  ]
  return { count, min, max }
}

/** A fresh storage directory for a persistent server. */
function persistentEnv(prefix: string) {
  const root = mkdtempSync(join(tmpdir(), prefix))
  return {
    root,
    env: {
      SERVICE_STORAGE_MODE: 'persistent',
      SERVICE_STORAGE_DIR: join(root, 'graph'),
      SERVICE_LOG_LEVEL: 'warn',
    },
  }
}

describe('CALL { } IN TRANSACTIONS under kill -9', () => {
  it('keeps whole batches only', async () => {
    const { root, env } = persistentEnv('batches-')
    try {
      // Kill once some batches are durable and visible, while the rest are still to come.
      await killMidBatches({ env, write: WRITE, count: batchCount, minSeen: 1, batch: BATCH, total: ROWS })
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 180_000)

  it('keeps a declared constraint and index across a kill, and enforces the constraint after restart', async () => {
    const { root, env } = persistentEnv('schema-')
    const write = (server: RunningServer, query: string) =>
      server.request<CypherEnvelope & { result: { validation_errors: { code: string }[] } }>(
        '/v1/cypher/write',
        {
          body: { query },
        },
      )
    try {
      let server = await startServer({ env, timeoutMs: 60_000 })
      expect(
        (
          await write(
            server,
            'CREATE CONSTRAINT tool_name IF NOT EXISTS FOR (t:Tool) REQUIRE t.name IS UNIQUE',
          )
        ).json.result.status,
      ).toBe('Success')
      expect(
        (await write(server, 'CREATE INDEX tool_kind IF NOT EXISTS FOR (t:Tool) ON (t.kind)')).json.result
          .status,
      ).toBe('Success')
      expect((await write(server, "CREATE (:Tool {name: 'nmap'})")).json.result.status).toBe('Success')
      await server.kill()
      server = await startServer({ env, timeoutMs: 60_000 })
      try {
        const shown = await server.request<CypherEnvelope>('/v1/cypher/read', {
          body: {
            query: 'SHOW INDEXES YIELD name WHERE name STARTS WITH "tool" RETURN collect(name) AS names',
          },
        })
        expect(shown.json.result.data?.rows).toEqual([[['tool_name', 'tool_kind']]])
        const dup = await write(server, "CREATE (:Tool {name: 'nmap'})")
        expect(dup.json.result.validation_errors[0]?.code).toBe('CONSTRAINT_VALIDATION_FAILED')
      } finally {
        await server.stop()
      }
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 180_000)
})
