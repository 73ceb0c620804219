import { describe, expect, it } from 'vitest'
import { testEngine } from '../test-support.js'

// A subquery's pipeline is kept per context when its stages go row by row (union.ts): the answers must be
// those of a pipeline built for each incoming row, and stages that hold rows must still start afresh.

describe('a subquery run once per incoming row', () => {
  it('answers per row through a kept pipeline, in one run and the next', async () => {
    const { rows } = testEngine()
    const query =
      'UNWIND [1, 2, 3] AS x CALL (x) { WITH x WHERE x > 1 RETURN x * 10 AS y } RETURN collect(y) AS ys'
    expect(await rows(query)).toEqual([[[20, 30]]])
    expect(await rows(query)).toEqual([[[20, 30]]]) // the cached plan, in a new context
  })

  it('starts stages that hold rows (LIMIT, aggregation, ORDER BY, DISTINCT) afresh for each row', async () => {
    const { rows } = testEngine()
    expect(
      await rows('UNWIND [1, 2, 3] AS x CALL (x) { UNWIND [7, 8] AS i RETURN i LIMIT 1 } RETURN collect(i)'),
    ).toEqual([[[7, 7, 7]]])
    expect(
      await rows(
        'UNWIND [1, 2, 3] AS x CALL (x) { UNWIND range(1, x) AS i RETURN sum(i) AS s } RETURN collect(s)',
      ),
    ).toEqual([[[1, 3, 6]]])
    expect(
      await rows(
        'UNWIND [2, 1] AS x CALL (x) { UNWIND [x, 0, x] AS i WITH DISTINCT i ORDER BY i DESC RETURN collect(i) AS l } RETURN collect(l)',
      ),
    ).toEqual([
      [
        [
          [2, 0],
          [1, 0],
        ],
      ],
    ])
  })

  it('writes once per incoming row, and each row sees the writes of the rows before it', async () => {
    const { rows } = testEngine()
    await rows('UNWIND range(1, 4) AS i CALL (i) { CREATE (:N {i: i}) }')
    expect(
      await rows(
        'UNWIND range(1, 3) AS k CALL (k) { MATCH (n:N) WHERE n.i <= k CREATE (n)-[:SEEN {k: k}]->(n) } RETURN count(*)',
      ),
    ).toEqual([[3]])
    expect(await rows('MATCH ()-[s:SEEN]->() RETURN count(s)')).toEqual([[6]])
    expect(
      await rows(
        'UNWIND [1, 2] AS x CALL (x) { MATCH (n:N) WITH count(n) AS c CREATE (:N {i: c}) } RETURN x',
      ),
    ).toEqual([[1], [2]])
    expect(await rows('MATCH (n:N) RETURN collect(n.i)')).toEqual([[[1, 2, 3, 4, 4, 5]]])
  })
})
