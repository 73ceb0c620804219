import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'

const GRAPH = 'MATCH (n) RETURN n ORDER BY id(n)'

describe('compiled single writes in the log', () => {
  it('replay to the graph they left, refused writes absent (no checkpoint: the log alone)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compiled-replay-'))
    const open = () =>
      openEngine({ storage: { mode: 'persistent', dir, requireFsync: false, checkpointOnClose: false } })
    try {
      const engine = await open()
      await engine.write('CREATE CONSTRAINT FOR (u:U) REQUIRE u.name IS UNIQUE')
      const values: unknown[] = [
        1,
        2.5,
        'x',
        true,
        [1, 2],
        ['a'],
        { $date: '2015-07-21' },
        'dup',
        null,
        { a: 1 },
      ]
      // 64 writers at once, as the benchmark sends them: some run at once, the others take their turn.
      const writes = Array.from({ length: 200 }, (_, i) => {
        const value = values[i % values.length]
        const query =
          i % 3 === 0 ? 'CREATE (n:U {name: $v, i: $i}) RETURN n' : "CREATE (:A:B {v: $v, i: $i, lit: 'l'})"
        return engine.write(query, { v: value, i }).then(
          (result) => result.mutation_summary.created_nodes,
          (error: { code?: string }) => error.code,
        )
      })
      const outcomes = await Promise.all(writes)
      expect(outcomes.filter((o) => o === 1).length).toBeGreaterThan(120)
      expect(outcomes).toContain(0) // the map value and the duplicate name are refused (as results, not throws)
      const before = (await engine.read(GRAPH)).data
      await engine.close()
      const reopened = await open()
      expect((await reopened.read(GRAPH)).data).toEqual(before)
      await reopened.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
