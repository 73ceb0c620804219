import { expect } from 'vitest'
import { type RunningServer, startServer } from './harness.js'

const WRITERS = 8

export interface CypherEnvelope {
  ok: boolean
  result: { status: string; data: { columns: string[]; rows: unknown[][] } | null }
}

/** Each write is two nodes and a relationship in one query, so a half-applied write would show. */
const WRITE =
  'CREATE (a:Item {k: $k, part: 1, round: $round})-[:PAIR {k: $k}]->(b:Item {k: $k, part: 2, round: $round})'

/** Concurrent writers until `stop.now`; every acknowledged key lands in `acked`. */
export async function writeUntilStopped(
  server: RunningServer,
  round: number,
  acked: Set<string>,
  stop: { now: boolean },
  refused?: Map<string, number>,
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
        else {
          refused?.set(k, res.status)
          if (refused !== undefined) await new Promise((r) => setTimeout(r, 20))
        }
      } catch {
        return // connection refused or reset: the process is gone
      }
    }
  }
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)))
}

/**
 * Starts a server on `env` per round, writes concurrently for up to 450 ms, kills it with SIGKILL; then
 * checks on a last start that every acknowledged write is there whole and nothing is half-applied.
 */
export async function killNineRounds(
  env: Record<string, string>,
  rounds: number,
  signal: AbortSignal,
): Promise<void> {
  const acked = new Set<string>()
  const started = Date.now()
  for (let round = 0; round < rounds; round++) {
    // A timed-out test keeps running in the background: stop starting servers once it is abandoned.
    if (signal.aborted) return
    // A start waits for recovery on a machine that may be busy with other work: one minute, not 20 s.
    const server = await startServer({ env, timeoutMs: 60_000 })
    const stop = { now: false }
    const load = writeUntilStopped(server, round, acked, stop)
    try {
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 400)))
    } finally {
      await server.kill()
      stop.now = true
      await load
    }
    if (rounds >= 100 && (round + 1) % 50 === 0)
      process.stdout.write(
        `kill -9 soak: ${round + 1}/${rounds} rounds, ${acked.size} acknowledged writes, ${Math.round((Date.now() - started) / 1000)} s\n`,
      )
  }
  const server = await startServer({ env, timeoutMs: 120_000 })
  try {
    await expectWhole(server, rounds, acked)
    expect(acked.size).toBeGreaterThan(rounds)
    const health = await server.request<{ durability: { recovery: { outcome: string } } }>('/health', {
      token: null,
    })
    expect(health.json.durability.recovery.outcome).toBe('recovered')
  } finally {
    await server.stop()
  }
}

/** Every acknowledged write of rounds 0..rounds-1 is there whole; returns the complete keys. */
export async function expectWhole(
  server: RunningServer,
  rounds: number,
  acked: Set<string>,
): Promise<Set<string>> {
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
  for (let round = 0; round < rounds; round++) {
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
  return complete
}
