import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect } from 'vitest'
import { ADMIN_TOKEN, type RunningServer, serverMain } from './harness.js'
import { type Body, MEMORY_PATH } from './memory-support.js'
import { malware, refWriter } from './ref-support.js'
import { countItems, writePair } from './storage-faults-support.js'

const run = promisify(execFile)

/** The environment the backup commands run with: the admin token for `backup`, nothing else inherited. */
export const cliEnv = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
}

/** Runs `service-http-server ARGS`; resolves with its exit code and output instead of throwing on failure. */
export async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [serverMain, ...args], { env: cliEnv })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** What a backup taken under concurrent writes must hold, as the writers saw it. */
export interface BackupUnderLoad {
  sequence: number
  /** Per lane, writes acknowledged before the backup started: all must be in it. */
  before: Map<string, number>
  /** Per lane, writes sent before the backup ended: none past these may be in it. */
  startedByEnd: Map<string, number>
  /** Every acknowledged write over the whole run (more than the backup holds). */
  ackedTotal: number
  /** Memory `remember` requests acknowledged before the backup started, with the record id each got. */
  memoriesBefore: { body: Body; id: string }[]
  /** Reference writes acknowledged before the backup started, with the answer each got. */
  refsBefore: { body: unknown; answer: unknown }[]
}

/** What a server taking the reference lane needs: no rate limit on `/v1/ref/*` in the way. */
export const REF_LANE_ENV = {
  SERVICE_REF_RATE_LIMIT_PER_SECOND: '100000',
  SERVICE_REF_RATE_LIMIT_BURST: '100000',
}

/**
 * Three Cypher lanes, a memory lane and a reference-write lane (servers started with REF_LANE_ENV) write while `service-http-server backup` downloads a backup of
 * `server` into `out` (20 warm-up pairs first); the lanes go on a moment after the backup ends.
 */
export async function backupDuringWrites(server: RunningServer, out: string): Promise<BackupUnderLoad> {
  for (let i = 0; i < 20; i++) expect((await writePair(server, `warm:${i}`)).acknowledged).toBe(true)
  const acked = new Map<string, number[]>()
  const started = new Map<string, number>()
  let stop = false
  const lane = async (name: string) => {
    for (let i = 0; !stop; i++) {
      started.set(name, i + 1)
      const w = await writePair(server, `${name}:${i}`, 'x'.repeat(200))
      expect(w.acknowledged).toBe(true)
      acked.set(name, [...(acked.get(name) ?? []), i])
    }
  }
  const memories: { body: Body; id: string }[] = []
  const memoryLane = async () => {
    for (let i = 0; !stop; i++) {
      const body = {
        contract_version: 'v1',
        operation: 'remember',
        idempotency_key: `backup-m-${i}`,
        input: {
          kind: 'note',
          schema_version: '1',
          content: { format: 'text_and_properties', value: { text: `memory ${i}`, properties: {} } },
          provenance: [
            { source_id: 'backup-e2e', locator: `line ${i}`, observed_at: '2026-01-01T00:00:00Z' },
          ],
          confidence: 0.5,
          tags: ['backup'],
        },
      }
      const res = await server.request<Body>(MEMORY_PATH, { body })
      expect(res.status).toBe(200)
      memories.push({ body, id: res.json.result.result.record.id })
    }
  }
  const refs: { body: unknown; answer: unknown }[] = []
  const refWrites = refWriter('backup-')
  const refLane = async () => {
    for (let i = 0; !stop; i++) {
      const body = refWrites.write('create', { record: malware(`malware--backup-${i}`) })
      const res = await server.request<{ outcome: { status: string } }>('/v1/ref/writes', { body })
      expect(res.json.outcome?.status, JSON.stringify(res.json)).toBe('success')
      refs.push({ body, answer: res.json })
    }
  }
  const lanes = [...['a', 'b', 'c'].map(lane), memoryLane(), refLane()]
  // Every lane has written at least once (a lane's first request may be slow: first use of its ledger).
  for (let waited = 0; acked.size < 3 || memories.length === 0 || refs.length === 0; waited += 50) {
    if (waited > 30_000) throw new Error('a writing lane acknowledged nothing within 30 s')
    await new Promise((r) => setTimeout(r, 50))
  }
  await new Promise((r) => setTimeout(r, 300))
  const before = new Map([...acked].map(([k, v]) => [k, v.length]))
  const memoriesBefore = memories.length
  const refsBefore = refs.length
  const backup = await cli(['backup', '--url', server.url, '--out', out])
  // A write sent after the backup ended commits after its sequence.
  const startedByEnd = new Map(started)
  await new Promise((r) => setTimeout(r, 200))
  stop = true
  await Promise.all(lanes)
  expect(backup.code, backup.stderr).toBe(0)
  const sequence = (JSON.parse(backup.stdout) as { sequence: number }).sequence
  expect(sequence).toBeGreaterThan(20)
  expect(memoriesBefore).toBeGreaterThan(0)
  expect(refsBefore).toBeGreaterThan(0)
  return {
    sequence,
    before,
    startedByEnd,
    ackedTotal: [...acked.values()].reduce((n, v) => n + v.length, 0) + 20,
    memoriesBefore: memories.slice(0, memoriesBefore),
    refsBefore: refs.slice(0, refsBefore),
  }
}

/** A server on a restored store holds every write of the backup's moment and nothing sent after it. */
export async function expectExactlyUpTo(copy: RunningServer, taken: BackupUnderLoad): Promise<void> {
  const got = await lanesOf(copy)
  // Every write acknowledged before the backup started is there; each lane is a gapless prefix.
  for (const [name, n] of taken.before) expect((got.get(name) ?? []).length).toBeGreaterThanOrEqual(n)
  for (const indexes of got.values()) expect(indexes).toEqual(indexes.map((_, i) => i))
  // Nothing sent after the backup ended is in it; the lanes did write more afterwards.
  for (const [name, n] of taken.startedByEnd) expect((got.get(name) ?? []).length).toBeLessThanOrEqual(n)
  expect((await countItems(copy)) / 2).toBeLessThan(taken.ackedTotal)
  // The memory ledger came along: replaying an acknowledged remember gives back the same record.
  for (const m of taken.memoriesBefore) {
    const replay = await copy.request<Body>(MEMORY_PATH, { body: m.body })
    expect(replay.json.result.result.record.id).toBe(m.id)
  }
  // So did the reference receipts: a retried acknowledged write is answered from its receipt, unchanged.
  for (const r of taken.refsBefore) {
    expect((await copy.request('/v1/ref/writes', { body: r.body })).json).toEqual(r.answer)
  }
}

/** Keys per lane present in a server, as lane → sorted indexes. */
async function lanesOf(server: RunningServer): Promise<Map<string, number[]>> {
  const res = await server.request<{ result: { data: { rows: [string][] } } }>('/v1/cypher/read', {
    body: { query: 'MATCH (n:Item {part: 1}) RETURN n.k AS k' },
  })
  const lanes = new Map<string, number[]>()
  for (const [k] of res.json.result.data.rows) {
    const [lane, i] = k.split(':') as [string, string]
    lanes.set(
      lane,
      [...(lanes.get(lane) ?? []), Number(i)].sort((a, b) => a - b),
    )
  }
  return lanes
}
