import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'
import {
  checkDigest,
  eventually,
  fiuControl,
  fiuPresent,
  persistentEnv,
  readyStatus,
  toolPresent,
  writePair,
} from './storage-faults-support.js'

const fiu = toolPresent('fiu-run (libfiu)', fiuPresent())
const FDATASYNC_EIO = 'enable name=posix/io/sync/fdatasync,failinfo=5'

const memoryRequest = (key: string) => ({
  contract_version: 'v1',
  operation: 'remember',
  idempotency_key: key,
  input: {
    kind: 'note',
    schema_version: '1',
    content: { format: 'text_and_properties', value: { text: `note ${key}`, properties: {} } },
    provenance: [{ source_id: 'faults', locator: 'line 1', observed_at: '2026-01-01T00:00:00Z' }],
    confidence: 0.5,
    tags: ['faults'],
  },
})

const refRequest = (key: string, id: string) => ({
  contract_version: { major: 1, minor: 0 },
  context: {
    request_id: `req-${key}`,
    correlation_id: `corr-${key}`,
    idempotency_key: key,
    access: { subject_id: 'user--faults', organization_ids: [], marking_ids: [], roles: [], attributes: {} },
    consistency: 'read_your_writes',
  },
  operation: { operation: 'create', request: { record: { id, type: 'malware', name: `Malware ${id}` } } },
})

interface MemoryAnswer {
  ok: boolean
  result?: { result: { receipt: { replayed: boolean }; record: { id: string } } }
  error?: { code: string; message: string }
}
interface RefAnswer {
  ok: boolean
  outcome?: { status: string; response?: unknown; error?: { code: string } }
  error?: { code: string; message: string }
}

const remember = (server: RunningServer, key: string) =>
  server.request<MemoryAnswer>('/v1/memory/operations', { body: memoryRequest(key) })
const refCreate = (server: RunningServer, key: string, id: string) =>
  server.request<RefAnswer>('/v1/ref/writes', { body: refRequest(key, id) })

/** Memories in the memory door's workspace (the server's trusted default). */
async function memoryCount(server: RunningServer): Promise<number> {
  const res = await server.request<{ result: { data: { rows: unknown[][] } } }>('/v1/cypher/read', {
    body: { query: 'MATCH (m:Memory) RETURN count(m) AS c', workspace_id: 'workspace--standalone-default' },
  })
  return res.json.result.data.rows[0]?.[0] as number
}

describe.skipIf(!fiu)('a refused write, its retry with the same key, and what recovery finds', () => {
  it('in place: the refused memory and ref writes are absent after the resume, and their retries write once', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'faults-idem-')), 'graph')
    const control = fiuControl()
    const server = await startServer({ env: { ...persistentEnv(dir), ...control.env } })
    try {
      expect((await remember(server, 'mem-ok')).status).toBe(200)
      await control.send(server, FDATASYNC_EIO)
      const refusedMemory = await remember(server, 'mem-refused')
      expect({ status: refusedMemory.status, code: refusedMemory.json.error?.code }).toEqual({
        status: 503,
        code: 'DURABILITY_FAILED',
      })
      const refusedRef = await refCreate(server, 'ref-refused', 'malware--refused')
      // The reference-write door's own code for a write whose intent could not be made durable.
      expect(refusedRef.status).toBe(503)
      expect(refusedRef.json.error?.code).toBe('REF_PROJECTION_STATE_FAILED')
      expect(refusedRef.json.error?.message).toMatch(/storage failed|suspended/)
      await control.send(server, 'disable name=posix/io/sync/fdatasync')
      await eventually(async () => (await readyStatus(server)) === 200)
      // The failed batch was dropped by the resume: a retry writes it, a second retry replays it.
      const retried = await remember(server, 'mem-refused')
      expect(retried.status).toBe(200)
      expect(retried.json.result?.result.receipt.replayed).toBe(false)
      const replayed = await remember(server, 'mem-refused')
      expect(replayed.json.result?.result.receipt.replayed).toBe(true)
      expect(replayed.json.result?.result.record.id).toBe(retried.json.result?.result.record.id)
      const refRetried = await refCreate(server, 'ref-refused', 'malware--refused')
      expect(refRetried.status).toBe(200)
      expect(refRetried.json.outcome?.status).toBe('success')
      const refReplayed = await refCreate(server, 'ref-refused', 'malware--refused')
      expect(refReplayed.json.outcome).toEqual(refRetried.json.outcome)
      expect(await memoryCount(server)).toBe(2)
    } finally {
      await server.stop()
    }
  })

  // Only the first write after the fault reaches the file (the log is suspended at once), so each kind of
  // write gets its own episode: the refused write, kill -9 before the storage answers, restart.
  const episodes: {
    kind: string
    refuse: (s: RunningServer) => Promise<number>
    check: (s: RunningServer) => Promise<void>
  }[] = [
    {
      kind: 'Cypher pair',
      refuse: async (s) => (await writePair(s, 'pair-refused')).status,
      check: async (s) => {
        const { foundRefused } = await checkDigest(s, new Set(), new Set(['pair-refused']))
        expect(foundRefused).toEqual(['pair-refused'])
      },
    },
    {
      kind: 'memory remember',
      refuse: async (s) => (await remember(s, 'mem-refused')).status,
      check: async (s) => {
        const retried = await remember(s, 'mem-refused')
        expect(retried.status).toBe(200)
        expect(retried.json.result?.result.receipt.replayed).toBe(true)
        expect(await memoryCount(s)).toBe(1)
      },
    },
    {
      kind: 'ref create',
      refuse: async (s) => (await refCreate(s, 'ref-refused', 'malware--refused')).status,
      check: async (s) => {
        const retried = await refCreate(s, 'ref-refused', 'malware--refused')
        expect(retried.status).toBe(200)
        expect(retried.json.outcome?.status).toBe('success')
        const again = await refCreate(s, 'ref-refused', 'malware--refused')
        expect(again.json.outcome).toEqual(retried.json.outcome)
        const records = await s.request<{ result: { data: { rows: unknown[][] } } }>('/v1/cypher/read', {
          body: { query: "MATCH (n) WHERE n.id = 'malware--refused' RETURN count(n) AS c" },
        })
        expect(records.json.result.data.rows[0]?.[0] ?? 0).toBeLessThanOrEqual(1)
      },
    },
  ]
  for (const episode of episodes) {
    it(`after kill -9 during the fault: a refused ${episode.kind} whose bytes reached the file is found whole, and its retry answers the original result`, async () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'faults-kill-')), 'graph')
      const control = fiuControl()
      let server = await startServer({ env: { ...persistentEnv(dir), ...control.env } })
      expect((await writePair(server, 'pair-ok')).acknowledged).toBe(true)
      await control.send(server, FDATASYNC_EIO)
      expect(await episode.refuse(server)).toBe(503)
      // The process dies before the storage answers again: the write(2) reached the page cache, so the file
      // the next start reads holds the refused batch (its fdatasync failed, its bytes did not vanish).
      await server.kill()
      server = await startServer({ env: persistentEnv(dir) })
      try {
        await checkDigest(server, new Set(['pair-ok']), new Set(['pair-refused']))
        await episode.check(server)
      } finally {
        await server.stop()
      }
    })
  }
})
