import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'

const ROUNDS = Number(process.env.KILL9_ROUNDS ?? 20)
const WRITERS = 8
/**
 * The budget grows with the rounds: a round is a server start (4 to 6 s on a busy 2-core machine),
 * up to 450 ms of writes and a kill; the final check reads three counts per round. Ten seconds a round
 * leaves room on a machine that is busy with other work, so `KILL9_ROUNDS=1000` (the soak) runs to its end.
 */
const TIMEOUT_MS = 120_000 + ROUNDS * 10_000

interface CypherEnvelope {
  ok: boolean
  result: { status: string; data: { columns: string[]; rows: unknown[][] } | null }
}

const persistentEnv = (dir: string) => ({
  SERVICE_STORAGE_MODE: 'persistent',
  SERVICE_STORAGE_DIR: dir,
  SERVICE_LOG_LEVEL: 'warn',
})

/** Each write is two nodes and a relationship in one query, so a half-applied write would show. */
const WRITE =
  'CREATE (a:Item {k: $k, part: 1, round: $round})-[:PAIR {k: $k}]->(b:Item {k: $k, part: 2, round: $round})'

async function writeUntilKilled(
  server: RunningServer,
  round: number,
  acked: Set<string>,
  stop: { now: boolean },
) {
  let n = 0
  const writer = async (w: number) => {
    while (!stop.now) {
      const k = `r${round}-w${w}-${n++}`
      try {
        const res = await server.request<CypherEnvelope>('/v1/cypher/write', {
          body: { query: WRITE, params: { k, round } },
        })
        if (res.status === 200 && res.json.result.status === 'Success') acked.add(k)
      } catch {
        return // connection refused or reset: the process is gone
      }
    }
  }
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)))
}

describe('durability under kill -9', () => {
  it(
    `keeps every acknowledged write and never a half-applied one (${ROUNDS} rounds)`,
    async ({ signal }) => {
      const root = mkdtempSync(join(tmpdir(), 'kill9-'))
      const dir = join(root, 'graph')
      const acked = new Set<string>()
      const started = Date.now()
      for (let round = 0; round < ROUNDS; round++) {
        // A timed-out test keeps running in the background: stop starting servers once it is abandoned.
        if (signal.aborted) return
        // A start waits for recovery on a machine that may be busy with other work: one minute, not 20 s.
        const server = await startServer({ env: persistentEnv(dir), timeoutMs: 60_000 })
        const stop = { now: false }
        const load = writeUntilKilled(server, round, acked, stop)
        try {
          await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 400)))
        } finally {
          await server.kill()
          stop.now = true
          await load
        }
        if (ROUNDS >= 100 && (round + 1) % 50 === 0)
          process.stdout.write(
            `kill -9 soak: ${round + 1}/${ROUNDS} rounds, ${acked.size} acknowledged writes, ${Math.round((Date.now() - started) / 1000)} s\n`,
          )
      }
      const server = await startServer({ env: persistentEnv(dir), timeoutMs: 120_000 })
      try {
        // Complete writes, read round by round: a fast machine acknowledges more than one answer's budgets.
        const complete = new Set<string>()
        let nodes = 0
        let rels = 0
        const count = async (query: string, round: number) => {
          const res = await server.request<CypherEnvelope>('/v1/cypher/read', {
            body: { query, params: { round } },
          })
          return (res.json.result.data!.rows[0] as [number])[0]
        }
        for (let round = 0; round < ROUNDS; round++) {
          const res = await server.request<CypherEnvelope>('/v1/cypher/read', {
            body: {
              query:
                'MATCH (a:Item {round: $round})-[r:PAIR]->(b:Item {part: 2}) WHERE a.part = 1 AND a.k = b.k AND r.k = a.k RETURN a.k AS k',
              params: { round },
            },
          })
          expect(res.json.result.status).toBe('Success')
          for (const row of res.json.result.data!.rows) complete.add(row[0] as string)
          nodes += await count('MATCH (n:Item {round: $round}) RETURN count(n) AS n', round)
          rels += await count('MATCH (:Item {round: $round})-[r:PAIR]->() RETURN count(r) AS n', round)
        }
        const missing = [...acked].filter((k) => !complete.has(k))
        expect(missing, `${missing.length} acknowledged writes lost`).toEqual([])
        // Nothing half-visible: every node and relationship belongs to one complete write.
        expect(nodes).toBe(complete.size * 2)
        expect(rels).toBe(complete.size)
        expect(acked.size).toBeGreaterThan(ROUNDS)
        const health = await server.request<{ durability: { recovery: { outcome: string } } }>('/health', {
          token: null,
        })
        expect(health.json.durability.recovery.outcome).toBe('recovered')
      } finally {
        await server.stop()
        rmSync(root, { recursive: true, force: true })
      }
    },
    TIMEOUT_MS,
  )
})
