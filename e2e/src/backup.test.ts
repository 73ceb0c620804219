import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cli } from './backup-support.js'
import { ADMIN_TOKEN, type RunningServer, startServer } from './harness.js'
import { type Body, MEMORY_PATH } from './memory-support.js'
import { countItems, persistentEnv, writePair } from './storage-faults-support.js'

const scratch = mkdtempSync(join(tmpdir(), 'backup-e2e-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const adminEnv = (dir: string) => persistentEnv(dir, { SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN })

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

describe('online backup of the file store', () => {
  it('taken during concurrent Cypher and memory writes, holds every write acknowledged before it and none sent after it', async () => {
    const dir = join(scratch, 'live')
    // Small segments and checkpoints so rotation and compaction happen while the backup streams.
    const server = await startServer({
      env: {
        ...adminEnv(dir),
        SERVICE_STORAGE_SEGMENT_BYTES: String(64 * 1024),
        SERVICE_STORAGE_CHECKPOINT_EVERY_BYTES: String(256 * 1024),
      },
    })
    try {
      for (let i = 0; i < 20; i++) expect((await writePair(server, `warm:${i}`)).acknowledged).toBe(true)
      const acked = new Map<string, number[]>()
      /** Per lane, how many writes were sent so far. */
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
      // Memory writes beside the Cypher ones: each acknowledged `remember` and the id it was given.
      const memories: { key: string; body: unknown; id: string }[] = []
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
          memories.push({ key: body.idempotency_key, body, id: res.json.result.result.record.id })
        }
      }
      const lanes = [...['a', 'b', 'c'].map(lane), memoryLane()]
      await new Promise((r) => setTimeout(r, 300))
      const before = new Map([...acked].map(([k, v]) => [k, v.length]))
      const memoriesBefore = memories.length
      const out = join(scratch, 'live.tar')
      const backup = await cli(['backup', '--url', server.url, '--out', out])
      // A write sent after the backup ended commits after its sequence.
      const startedByEnd = new Map(started)
      await new Promise((r) => setTimeout(r, 200))
      stop = true
      await Promise.all(lanes)
      expect(backup.code, backup.stderr).toBe(0)
      const sequence = (JSON.parse(backup.stdout) as { sequence: number }).sequence
      expect(sequence).toBeGreaterThan(20)

      const verified = await cli(['verify', out])
      expect(verified.code, verified.stderr).toBe(0)
      expect(JSON.parse(verified.stdout)).toMatchObject({ kind: 'archive', sequence })

      const target = join(scratch, 'restored')
      const restored = await cli(['restore', out, '--storage-dir', target])
      expect(restored.code, restored.stderr).toBe(0)
      expect(JSON.parse(restored.stdout)).toMatchObject({
        backup: { sequence },
        recovery: { durable_sequence: sequence },
      })

      const copy = await startServer({ env: persistentEnv(target) as Record<string, string> })
      try {
        const got = await lanesOf(copy)
        // Every write acknowledged before the backup started is there; each lane is a gapless prefix.
        for (const [name, n] of before) expect((got.get(name) ?? []).length).toBeGreaterThanOrEqual(n)
        for (const indexes of got.values()) expect(indexes).toEqual(indexes.map((_, i) => i))
        // Nothing sent after the backup ended is in it; the lanes did write more afterwards.
        for (const [name, n] of startedByEnd) expect((got.get(name) ?? []).length).toBeLessThanOrEqual(n)
        const total = [...acked.values()].reduce((n, v) => n + v.length, 0) + 20
        expect((await countItems(copy)) / 2).toBeLessThan(total)
        // The memory ledger came along: replaying an acknowledged remember gives back the same record.
        expect(memoriesBefore).toBeGreaterThan(0)
        for (const m of memories.slice(0, memoriesBefore)) {
          const replay = await copy.request<Body>(MEMORY_PATH, { body: m.body })
          expect(replay.json.result.result.record.id).toBe(m.id)
        }
      } finally {
        await copy.stop()
      }

      // A second restore into the now non-empty target is refused.
      const again = await cli(['restore', out, '--storage-dir', target])
      expect(again.code).toBe(2)
      expect(again.stderr).toContain('RESTORE_TARGET_NOT_EMPTY')
    } finally {
      await server.stop()
    }
  })

  it('answers 409 to a second backup while one streams, and refuses a corrupted archive naming the file', async () => {
    const dir = join(scratch, 'busy')
    const server = await startServer({ env: adminEnv(dir) as Record<string, string> })
    try {
      // Larger than the socket buffers hold, so the first backup is still streaming while its body is unread.
      for (let i = 0; i < 400; i++) await writePair(server, `busy:${i}`, 'y'.repeat(16_000))
      const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
      const first = await fetch(`${server.url}/v1/admin/backup`, { headers: auth })
      expect(first.status).toBe(200)
      const second = await fetch(`${server.url}/v1/admin/backup`, { headers: auth })
      expect(second.status).toBe(409)
      expect(((await second.json()) as { error: { code: string } }).error.code).toBe('BACKUP_IN_PROGRESS')
      const archive = Buffer.from(await first.arrayBuffer())
      // The first one ended: a third is accepted again.
      const third = await fetch(`${server.url}/v1/admin/backup`, { headers: auth })
      expect(third.status).toBe(200)
      await third.arrayBuffer()

      const unauthorized = await server.request('/v1/admin/backup')
      expect(unauthorized.status).toBe(401)

      // One flipped byte inside the WAL segment's data.
      const at = archive.indexOf('busy:10')
      expect(at).toBeGreaterThan(0)
      const damaged = Buffer.from(archive)
      damaged[at] = 'B'.charCodeAt(0)
      const file = join(scratch, 'damaged.tar')
      writeFileSync(file, damaged)
      const target = join(scratch, 'from-damaged')
      const restore = await cli(['restore', file, '--storage-dir', target])
      expect(restore.code).toBe(6)
      expect(restore.stderr).toMatch(/BACKUP_CORRUPT: wal\/segment-\d{20}\.jsonl fails its checksum/)
      expect(existsSync(target)).toBe(false)
      // A cut-short download is refused too.
      const cut = join(scratch, 'cut.tar')
      writeFileSync(cut, archive.subarray(0, Math.floor(archive.length / 2)))
      const short = await cli(['verify', cut])
      expect(short.code).toBe(6)
      expect(short.stderr).toContain('cut short')
      expect(readFileSync(cut).length).toBeGreaterThan(0)
    } finally {
      await server.stop()
    }
  })
})
