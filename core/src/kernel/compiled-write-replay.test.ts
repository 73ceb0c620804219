import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'

const GRAPH = 'MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN n, r ORDER BY id(n), id(r)'

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
      // All in flight at once, as the benchmark sends them: some run at once, the others take their turn.
      const writes = Array.from({ length: 200 }, (_, i) => {
        const value = values[i % values.length]
        const query = [
          'CREATE (n:U {name: $v, i: $i}) RETURN n',
          "CREATE (:A:B {v: $v, i: $i, lit: 'l'})",
          'CREATE (a:Item {k: $i, part: 1})-[:PAIR {k: $i, v: $v}]->(b:Item {k: $i, part: 2}) RETURN b',
        ][i % 3] as string
        return engine.write(query, { v: value, i }).then(
          (result) => result.mutation_summary.created_nodes,
          (error: { code?: string }) => error.code,
        )
      })
      const outcomes = await Promise.all(writes)
      expect(outcomes.filter((o) => typeof o === 'number' && o > 0).length).toBeGreaterThan(120)
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
