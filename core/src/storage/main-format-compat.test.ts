import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'

// A directory written by main at 2093a74 (the format before the performance work): a checkpoint (node batches,
// relationship columns, counters, history) and WAL records above it, left as after kill -9. `make.mjs.txt`
// beside it is the script that wrote it and `expected.json` what that engine answered on it.
const fixture = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'main-2093a74')

describe('a directory written by the previous format', () => {
  it('recovers (checkpoint + WAL replay) and answers as the engine that wrote it', async () => {
    expect(existsSync(join(fixture, 'manifest.json'))).toBe(true)
    const dir = join(mkdtempSync(join(tmpdir(), 'compat-')), 'graph')
    cpSync(fixture, dir, { recursive: true, filter: (path) => !/expected\.json$|make\.mjs\.txt$/.test(path) })
    const expected = JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8')) as {
      query: string
      data: unknown
    }[]
    const engine = await openEngine({ storage: { mode: 'persistent', dir, requireFsync: true } })
    try {
      const facts = engine.recoveryFacts()
      expect(facts.recovery_path).toBe('checkpoint_and_bounded_replay')
      expect(facts.replayed_transactions).toBeGreaterThan(0)
      expect(facts.checkpoint_records).toBeGreaterThan(0)
      for (const { query, data } of expected) {
        const result = await engine.read(query, {}, { workspaceId: 'compat' })
        expect(result.data, query).toEqual(data)
      }
      // Still writable, and the write survives a reopen in the current format.
      expect((await engine.write("CREATE (:After {v: 'x'})", {}, { workspaceId: 'compat' })).status).toBe(
        'Success',
      )
    } finally {
      await engine.close()
    }
    const reopened = await openEngine({ storage: { mode: 'persistent', dir, requireFsync: true } })
    try {
      const count = await reopened.read('MATCH (n) RETURN count(*) AS n', {}, { workspaceId: 'compat' })
      const before = ((expected[0] as { data: unknown }).data as { rows: [string[], number][] }).rows.reduce(
        (n, row) => n + row[1],
        0,
      )
      expect(count.data?.rows).toEqual([[before + 1]])
    } finally {
      await reopened.close()
    }
  })
})
