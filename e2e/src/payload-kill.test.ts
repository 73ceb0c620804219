import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startServer } from './harness.js'
import { checkDigest, persistentEnv, writePair } from './storage-faults-support.js'

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
/** Over the payload threshold: every pair's `pad` goes to the payload file at a checkpoint. */
const pad = (k: string) => `${k}:${'é'.repeat(400)}`

describe('kill -9 between the payload fsync and the manifest switch', () => {
  it('keeps every acknowledged write whole, cuts the unreferenced payloads, and reads values back exactly', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'payload-kill-')), 'graph')
    const env = persistentEnv(dir, { SERVICE_STORAGE_CHECKPOINT_EVERY_BYTES: '8192' })
    const acknowledged = new Set<string>()
    const refused = new Set<string>()
    // The first checkpoint that writes a payload kills the process once the payload file is synced.
    let server = await startServer({ env: { ...env, SERVICE_FAULT_KILL_AFTER_PAYLOAD_SYNC: '1' } })
    let exited = false
    void server.exited.then(() => {
      exited = true
    })
    for (let n = 0; !exited && n < 2000; n++) {
      const k = `k-${n}`
      const w = await writePair(server, k, pad(k)).catch(() => ({ acknowledged: false }))
      if (w.acknowledged) acknowledged.add(k)
      else refused.add(k)
    }
    await server.exited
    expect(exited).toBe(true)
    expect(acknowledged.size).toBeGreaterThan(0)
    // The payloads reached the disk; the manifest never named them.
    const synced = statSync(join(dir, 'payloads.dat')).size
    expect(synced).toBeGreaterThan(8)
    expect(manifestOf(dir).payloads).toBeUndefined()

    server = await startServer({ env })
    try {
      expect(statSync(join(dir, 'payloads.dat')).size).toBe(8)
      await checkDigest(server, acknowledged, refused)
      // The checkpoint a clean stop writes moves the payloads for real; they read back byte for byte.
      await server.stop()
      expect(manifestOf(dir).payloads.bytes).toBeGreaterThan(8)
      expect(manifestOf(dir).record_format).toBe('JsonLinesV3')
      server = await startServer({ env })
      await checkDigest(server, acknowledged, refused)
      const res = await server.request<{ result?: { data?: { rows: unknown[][] } } }>('/v1/cypher/read', {
        body: { query: 'MATCH (n:Item {part: 2}) RETURN n.k AS k, n.pad AS pad' },
      })
      const rows = res.json.result?.data?.rows ?? []
      expect(rows.length).toBeGreaterThanOrEqual(acknowledged.size)
      for (const [k, value] of rows) expect(value).toBe(pad(k as string))
      // The metrics show the file and the reads it served (a fresh process: every first read is a miss).
      const metrics = (await server.request('/metrics', { token: null })).text
      const figure = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1])
      expect(figure('service_storage_payload_file_bytes')).toBe(manifestOf(dir).payloads.bytes)
      expect(figure('service_storage_payload_cache_misses_total')).toBeGreaterThanOrEqual(acknowledged.size)
      expect(figure('service_storage_payload_cache_bytes')).toBeGreaterThan(0)
      expect(figure('service_storage_payload_cache_limit_bytes')).toBe(16 * 1024 * 1024)
    } finally {
      await server.stop()
    }
  }, 120_000)
})
