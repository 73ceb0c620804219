import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startExpectingFailure, startServer } from './harness.js'

const env = (dir: string, extra: Record<string, string> = {}) => ({
  SERVICE_STORAGE_MODE: 'persistent',
  SERVICE_STORAGE_DIR: dir,
  SERVICE_LOG_LEVEL: 'warn',
  ...extra,
})

interface Envelope {
  result: { status: string; data: { rows: unknown[][] } | null }
}

/** A directory with `n` committed writes and no checkpoint yet (the server is killed, not stopped). */
async function seeded(n: number): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'store-')), 'graph')
  const server = await startServer({ env: env(dir) })
  for (let i = 0; i < n; i++) {
    await server.request('/v1/cypher/write', {
      body: { query: 'CREATE (:N {i: $i, f: 1.0, big: 9007199254740993})', params: { i } },
    })
  }
  await server.kill()
  return dir
}

const walSegments = (dir: string) =>
  readdirSync(join(dir, 'wal'))
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(dir, 'wal', f))

const count = async (dir: string, extra: Record<string, string> = {}) => {
  const server = await startServer({ env: env(dir, extra) })
  const res = await server.request<Envelope>('/v1/cypher/read', {
    body: { query: 'MATCH (n:N) RETURN count(n)' },
  })
  const health = await server.request<{ durability: { recovery: { warning_count: number } } }>('/health', {
    token: null,
  })
  await server.stop()
  return {
    n: res.json.result.data!.rows[0]![0] as number,
    warnings: health.json.durability.recovery.warning_count,
  }
}

describe('storage start-up outcomes', () => {
  it('restart preserves ids, property types and exact big integers', async () => {
    const dir = await seeded(3)
    const server = await startServer({ env: env(dir) })
    try {
      const res = await server.request<Envelope>('/v1/cypher/read', {
        body: { query: 'MATCH (n:N) RETURN id(n), n.i, n.f, n.big, toString(n.f) ORDER BY n.i' },
      })
      expect(res.json.result.data!.rows).toEqual([
        [0, 0, 1, '9007199254740993', '1.0'],
        [1, 1, 1, '9007199254740993', '1.0'],
        [2, 2, 1, '9007199254740993', '1.0'],
      ])
    } finally {
      await server.stop()
    }
  })

  it('truncates a torn final WAL line with a warning', async () => {
    const dir = await seeded(4)
    appendFileSync(walSegments(dir).at(-1)!, '{"seq":99,"tx":"tx--torn","at":1,"kind":"gra')
    expect(await count(dir)).toEqual({ n: 4, warnings: 1 })
  })

  it('refuses a flipped byte in the middle when strict (exit 6), recovers the prefix when not', async () => {
    const dir = await seeded(5)
    const segment = walSegments(dir).find((p) => readFileSync(p, 'utf8').includes('"kind":"graph"'))!
    const lines = readFileSync(segment, 'utf8').split('\n')
    const target = lines.findIndex((l) => l.includes('"kind":"graph"') && l.includes('{"i":"2"}'))
    lines[target] = lines[target]!.replace('{"i":"2"}', '{"i":"7"}')
    writeFileSync(segment, lines.join('\n'))
    const strict = await startExpectingFailure(env(dir))
    expect(strict.code).toBe(6)
    expect(strict.stderr).toContain('STORAGE_RECOVERY_FAILED')
    const lenient = await count(dir, { SERVICE_STORAGE_STRICT_RECOVERY: 'false' })
    expect(lenient.n).toBe(2)
    expect(lenient.warnings).toBeGreaterThanOrEqual(1)
  })

  it('refuses an incompatible manifest (exit 5) and a corrupt one (exit 6)', async () => {
    const dir = await seeded(1)
    const path = join(dir, 'manifest.json')
    const manifest = JSON.parse(readFileSync(path, 'utf8'))
    writeFileSync(path, JSON.stringify({ ...manifest, storage_version: 'V9' }))
    const incompatible = await startExpectingFailure(env(dir))
    expect(incompatible.code).toBe(5)
    expect(incompatible.stderr).toContain('STORAGE_INCOMPATIBLE')
    writeFileSync(path, '{ not json')
    const corrupt = await startExpectingFailure(env(dir))
    expect(corrupt.code).toBe(6)
  })

  it('recovers from the previous checkpoint when the newest is missing', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'store-')), 'graph')
    for (let generation = 0; generation < 2; generation++) {
      const server = await startServer({ env: env(dir) })
      await server.request('/v1/cypher/write', {
        body: { query: 'CREATE (:N {i: $i})', params: { i: generation } },
      })
      expect(await server.stop()).toBe(0) // clean stop writes a checkpoint
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    const newest = manifest.components.find((c: { name: string }) => c.name === 'checkpoint')
    const { unlinkSync } = await import('node:fs')
    unlinkSync(join(dir, 'checkpoints', newest.path))
    expect(await count(dir)).toEqual({ n: 2, warnings: 1 })
  })

  it('lets exactly one process own a directory (exit 4) and takes over a dead owner', async () => {
    const dir = await seeded(1) // killed: its lock names a dead pid
    const owner = await startServer({ env: env(dir) })
    try {
      const second = await startExpectingFailure(env(dir))
      expect(second.code).toBe(4)
      expect(second.stderr).toContain(`owned by process ${owner.process.pid}`)
    } finally {
      await owner.stop()
    }
  })
})

describe('operator CLI', () => {
  const cli = async (...args: string[]) => {
    const { spawnSync } = await import('node:child_process')
    const { serverMain } = await import('./harness.js')
    const r = spawnSync(process.execPath, [serverMain, ...args], { encoding: 'utf8' })
    return { code: r.status, stdout: r.stdout, stderr: r.stderr }
  }

  it('storage check says what recovery would do, and refuses damage with exit 6', async () => {
    const dir = await seeded(3)
    const ok = await cli('storage', 'check', dir)
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout).plan).toMatchObject({
      strict_outcome: 'recovers',
      recovery_path: 'full_replay',
    })
    const segment = walSegments(dir).find((p) => readFileSync(p, 'utf8').includes('"kind":"graph"'))!
    const lines = readFileSync(segment, 'utf8').split('\n')
    const target = lines.findIndex((l) => l.includes('"kind":"graph"'))
    lines[target] = lines[target]!.replace('"op":"createNode"', '"op":"createNodf"')
    writeFileSync(segment, lines.join('\n'))
    const bad = await cli('storage', 'check', dir)
    expect(bad.code).toBe(6)
    expect(JSON.parse(bad.stdout)).toMatchObject({
      damage: { kind: 'checksum' },
      plan: { strict_outcome: 'refuses', lenient_outcome: 'recovers_prefix' },
    })
  })

  it('storage snapshot copies a live directory into one that starts and holds every write acknowledged before it', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'store-')), 'graph')
    const server = await startServer({ env: env(dir) })
    let stop = false
    let acked = 0
    const writer = (async () => {
      while (!stop) {
        const res = await server.request<Envelope>('/v1/cypher/write', {
          body: { query: 'CREATE (:N {i: $i})', params: { i: acked } },
        })
        if (res.json.result.status === 'Success') acked++
      }
    })()
    await new Promise((r) => setTimeout(r, 300))
    const before = acked
    const dest = join(mkdtempSync(join(tmpdir(), 'snap-')), 'copy')
    const snap = await cli('storage', 'snapshot', dir, dest)
    stop = true
    await writer
    await server.stop()
    expect(snap.code).toBe(0)
    const copy = await count(dest)
    expect(copy.n).toBeGreaterThanOrEqual(before)
    expect(copy.n).toBeLessThanOrEqual(acked)
  })
})
